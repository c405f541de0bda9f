"""Cases for jax.image, evaluated by real JAX (reference/make_image_reference.py writes
image_reference.npz) and by jxkernel (tests/image/test_image.py compares values, dtypes and weak
types). Each group is one jitted program (a handful of compiles in all); `x64` says which
mode the caller runs `cases` in."""
import numpy as np


def operands(dtype=np.float32):
    rng = np.random.RandomState(7)
    return {"img": rng.randn(5, 6).astype(dtype),
            "rgb": rng.rand(4, 5, 2).astype(dtype),             # a channel axis kept as is
            "ints": rng.randint(0, 255, size=(4, 5)).astype(np.int32)}


def resizes(image, img, rgb, ints):
    """Each method once, (5, 6) -> (3, 9): one axis down (where antialiasing matters), one
    up; linear without antialiasing (with it: the channel case); PyTorch's cubic with its
    repeated edges; nearest (floats in `doubles`); a channel axis left alone; float16 (the
    cubic case; Lanczos 3 is in `derivatives`)."""
    out = {"linear_False": image.resize(img, (3, 9), "bilinear", antialias=False),
           "cubic-pytorch_False": image.resize(img, (3, 9), "cubic-pytorch", antialias=False),
           "lanczos5_False": image.resize(img, (3, 9), "lanczos5", antialias=False),
           "area": image.resize(img, (3, 9), "area"),
           "rgb_linear": image.resize(rgb, (7, 3, 2), "trilinear"),
           "same_shape": image.resize(img, img.shape, "cubic"),
           "ints_nearest": image.resize(ints, (7, 3), "nearest"),
           "ints_linear": image.resize(ints, (7, 5), "linear"),
           "float16": image.resize(img.astype(np.float16), (3, 6), image.ResizeMethod.CUBIC)}
    return out


def scale_and_translates(image, jnp, img, rgb):
    """Scales above and below one, translations of either sign and beyond the image, one
    axis (given as a negative dim), none; scale_and_translate refuses "nearest"."""
    scale, translation = jnp.array([1.7, 0.6]), jnp.array([-0.3, 1.2])
    out = {f"{method}_{antialias}": image.scale_and_translate(
               img, (7, 4), (0, 1), scale, translation, method, antialias=antialias)
           for method, antialias in (("linear", False), ("cubic-pytorch", False),
                                     ("lanczos3", True))}
    out["negative_dim"] = image.scale_and_translate(rgb, (4, 8, 2), (-2,), jnp.array([2.0]),
                                                    jnp.array([-3.0]), "lanczos5")
    out["shifted_out"] = image.scale_and_translate(img, (5, 6), (0,), jnp.array([1.]),
                                                   jnp.array([4.5]), "linear")
    out["no_axes"] = image.scale_and_translate(img, (5, 6), (), jnp.zeros(0), jnp.zeros(0),
                                               "linear")
    return out


def derivatives(jax, jnp, image, img):
    """Gradients with respect to the image and to the scale and translation; vmap."""
    weights = jnp.linspace(-1.0, 2.0, 36).reshape(6, 6)

    def through_resize(x):
        return jnp.sum(image.resize(x, (6, 6), "lanczos3") * weights)

    def through_warp(scale, translation):
        y = image.scale_and_translate(img, (6, 6), (0, 1), scale, translation, "cubic")
        return jnp.sum(y * weights)

    out = {"grad_image_lanczos3": jax.grad(through_resize)(img)}
    out["grad_warp_cubic"] = jax.grad(through_warp, argnums=(0, 1))(
        jnp.array([1.3, 0.8]), jnp.array([0.4, -0.65]))          # no sample on a kink
    out["batched"] = jax.vmap(lambda x: image.resize(x, (3, 7), "cubic"))(img[:4, None])
    return out


def doubles(jax, jnp, image, img):
    """A few of the above in float64 (the weights are float64 too)."""
    return {"linear": image.resize(img, (3, 9), "linear"),
            "nearest": image.resize(img, (3, 9), "nearest")}


def cases(jax, jnp, image, x64: bool) -> dict:
    """x32: every group, each one jitted program; x64: `doubles`."""
    if x64:
        return jax.jit(lambda x: doubles(jax, jnp, image, x))(operands(np.float64)["img"])
    ops = operands()
    groups = {"resize": (lambda img, rgb, ints: resizes(image, img, rgb, ints),
                         (ops["img"], ops["rgb"], ops["ints"])),
              "warp": (lambda img, rgb: scale_and_translates(image, jnp, img, rgb),
                       (ops["img"], ops["rgb"])),
              "grad": (lambda img: derivatives(jax, jnp, image, img), (ops["img"],))}
    return {f"{group}/{name}": value for group, (fun, args) in groups.items()
            for name, value in jax.jit(fun)(*args).items()}


def ulps(name: str) -> int:
    """Sums of about ten weight * pixel products (weights from sin for Lanczos), compared at
    the result's largest magnitude: the REDUCTION bound (16) covers XLA's fusion and summation
    order on any CPU (up to 7 seen on scale_and_translate, whose weights are computed at run
    time). A gradient with respect to scale or translation sums 36 kernel slopes that
    largely cancel (up to 10 seen): 64."""
    return 64 if name.startswith("grad/grad_warp") else 16
