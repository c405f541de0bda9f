"""jax.scipy.spatial.transform: `Rotation` (unit quaternions, scalar last, as SciPy's) and
`Slerp` (spherical linear interpolation between key rotations).

Both are NamedTuples, so pytrees: they pass through jit, vmap and grad as their arrays. Every
conversion is written for one rotation and vectorized over leading axes with `jnp.vectorize`,
as JAX does, so a stack of rotations is one `Rotation` whose `quat` has shape (N, 4). The
arithmetic is JAX 0.10.2's, operation for operation, so the values agree to the last bit where
XLA's are the same (the docstring examples print them).

    >>> r = Rotation.from_euler('z', 90, degrees=True)
    >>> r.as_rotvec()
    Array([0.       , 0.       , 1.5707964], dtype=float32)
"""
from __future__ import annotations

import functools
import re
import typing

import numpy as np

from ... import numpy as jnp
from ...core.config import config
from ...numpy import linalg as jnp_linalg

__all__ = ["Rotation", "Slerp"]


def _one(signature: str):
    """Write a function for one rotation; `jnp.vectorize` maps it over leading axes."""
    return functools.partial(jnp.vectorize, signature=signature)


def _axes_of(seq: str, *, exactly_three: bool) -> tuple[bool, list[int]]:
    """(intrinsic, axis indices) of an Euler sequence such as 'zxy' (extrinsic) or 'ZXY'
    (intrinsic), with SciPy's and JAX's errors for a malformed one."""
    if exactly_three:
        if len(seq) != 3:
            raise ValueError(f"Expected 3 axes, got {seq}.")
    elif not 1 <= len(seq) <= 3:
        raise ValueError("Expected axis specification to be a non-empty "
                         f"string of upto 3 characters, got {seq}")
    intrinsic = re.match(r'^[XYZ]{1,3}$', seq) is not None
    extrinsic = re.match(r'^[xyz]{1,3}$', seq) is not None
    if not (intrinsic or extrinsic):
        raise ValueError("Expected axes from `seq` to be from ['x', 'y', 'z'] or "
                         f"['X', 'Y', 'Z'], got {seq}")
    if any(a == b for a, b in zip(seq, seq[1:])):
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return intrinsic, [_basis_index(a) for a in seq.lower()]


def _basis_index(axis: str) -> int:
    try:
        return "xyz".index(axis)
    except ValueError:
        raise ValueError(f"Expected axis to be from ['x', 'y', 'z'], got {axis}") from None


class Rotation(typing.NamedTuple):
    """Rotation in 3 dimensions: JAX's version of :class:`scipy.spatial.transform.Rotation`,
    held as unit quaternions `quat` (x, y, z, w), one per rotation along the leading axis."""
    quat: typing.Any

    @classmethod
    def concatenate(cls, rotations: typing.Sequence):
        """Concatenate a sequence of `Rotation` objects."""
        return cls(jnp.concatenate([r.quat for r in rotations]))

    @classmethod
    def from_euler(cls, seq: str, angles, degrees: bool = False):
        """Initialize from Euler angles."""
        intrinsic, axes = _axes_of(seq, exactly_three=False)
        return cls(_quat_from_euler(jnp.atleast_1d(angles), jnp.array(axes), intrinsic,
                                    degrees))

    @classmethod
    def from_matrix(cls, matrix):
        """Initialize from rotation matrix."""
        return cls(_quat_from_matrix(matrix))

    @classmethod
    def from_mrp(cls, mrp):
        """Initialize from Modified Rodrigues Parameters (MRPs)."""
        return cls(_quat_from_mrp(mrp))

    @classmethod
    def from_quat(cls, quat):
        """Initialize from quaternions."""
        return cls(_normalized(quat))

    @classmethod
    def from_rotvec(cls, rotvec, degrees: bool = False):
        """Initialize from rotation vectors."""
        return cls(_quat_from_rotvec(rotvec, degrees))

    @classmethod
    def identity(cls, num: int | None = None, dtype=float):
        """Get identity rotation(s)."""
        # JAX 0.10.2 makes only the single identity (an assert for any `num`)
        assert num is None
        return cls(jnp.array([0., 0., 0., 1.], dtype=dtype))

    @classmethod
    def random(cls, random_key, num: int | None = None):
        """Generate uniformly distributed rotations."""
        # not implemented in JAX 0.10.2 either (it waits for scipy.stats.special_ortho_group)
        raise NotImplementedError()

    def __getitem__(self, indexer):
        """Extract rotation(s) at given index(es) from object."""
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self):
        """Number of rotations contained in this object."""
        if self.single:
            raise TypeError('Single rotation has no len().')
        return self.quat.shape[0]

    def __mul__(self, other) -> Rotation:
        """Compose this rotation with the other (`other` applied first)."""
        return Rotation.from_quat(_quat_product(self.quat, other.quat))

    def apply(self, vectors, inverse: bool = False):
        """Apply this rotation to one or more vectors."""
        return _rotate(self.as_matrix(), vectors, inverse)

    def as_euler(self, seq: str, degrees: bool = False):
        """Represent as Euler angles."""
        intrinsic, axes = _axes_of(seq, exactly_three=True)
        # JAX allows rank promotion here whatever the option says: a stack of rotations meets
        # the one axis sequence
        with config.override("jax_numpy_rank_promotion", "allow"):
            return _euler_from_quat(self.quat, jnp.array(axes), not intrinsic, degrees)

    def as_matrix(self):
        """Represent as rotation matrix."""
        return _matrix_from_quat(self.quat)

    def as_mrp(self):
        """Represent as Modified Rodrigues Parameters (MRPs)."""
        return _mrp_from_quat(self.quat)

    def as_rotvec(self, degrees: bool = False):
        """Represent as rotation vectors."""
        return _rotvec_from_quat(self.quat, degrees)

    def as_quat(self, canonical: bool = False, scalar_first: bool = False):
        """Represent as quaternions."""
        quat = _canonical(self.quat) if canonical else self.quat
        return jnp.roll(quat, shift=1, axis=-1) if scalar_first else quat

    def inv(self):
        """Invert this rotation."""
        return Rotation(_conjugate(self.quat))

    def magnitude(self):
        """Get the magnitude(s) of the rotation(s)."""
        return _angle(self.quat)

    def mean(self, weights=None):
        """Get the mean of the rotations: the eigenvector of the largest eigenvalue of the
        weighted sum of the quaternions' outer products (Markley's method, as SciPy's)."""
        dtype = self.quat.dtype
        w = (jnp.ones(self.quat.shape[0], dtype=dtype) if weights is None
             else jnp.asarray(weights, dtype=dtype))
        if w.ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ValueError("Expected `weights` to have number of values equal to number of "
                             f"rotations, got {w.shape[0]} values and {len(self)} rotations.")
        outer = jnp.dot(w[np.newaxis, :] * self.quat.T, self.quat)
        _, vectors = jnp_linalg.eigh(outer)
        return Rotation(vectors[:, -1])

    @property
    def single(self) -> bool:
        """Whether this instance represents a single rotation."""
        return self.quat.ndim == 1


class Slerp(typing.NamedTuple):
    """Spherical Linear Interpolation of Rotations: JAX's version of
    :class:`scipy.spatial.transform.Slerp`. Build it with `Slerp.init(times, rotations)`;
    calling it with times gives the interpolated `Rotation`."""
    times: typing.Any
    timedelta: typing.Any
    rotations: Rotation
    rotvecs: typing.Any

    @classmethod
    def init(cls, times, rotations: Rotation):
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = jnp.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ValueError("Expected times to be specified in a 1 dimensional array, got "
                             f"{times.ndim} dimensions.")
        if times.shape[0] != len(rotations):
            raise ValueError("Expected number of rotations to be equal to number of "
                             f"timestamps given, got {len(rotations)} rotations and "
                             f"{times.shape[0]} timestamps.")
        # Times are not checked to increase: that would need their values (no check under jit,
        # as in JAX)
        quats = rotations.as_quat()
        starts = Rotation(quats[:-1])
        # each interval as the rotation vector that carries its start to its end
        steps = (starts.inv() * Rotation(quats[1:])).as_rotvec()
        return cls(times=times, timedelta=jnp.diff(times), rotations=starts, rotvecs=steps)

    def __call__(self, times):
        """Interpolate rotations."""
        at = jnp.asarray(times, dtype=self.times.dtype)
        if at.ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        scalar = at.ndim == 0
        at = jnp.atleast_1d(at)
        interval = jnp.maximum(jnp.searchsorted(self.times, at) - 1, 0)
        fraction = (at - self.times[interval]) / self.timedelta[interval]
        result = (self.rotations[interval]
                  * Rotation.from_rotvec(self.rotvecs[interval] * fraction[:, None]))
        return result[0] if scalar else result


# --- one rotation at a time (vectorized over leading axes) ------------------------------------

@_one('(n)->()')
def _norm(v):
    return jnp.sqrt(jnp.dot(v, v))


@_one('(n)->(n)')
def _normalized(quat):
    return quat / _norm(quat)


@_one('(n)->(n)')
def _conjugate(quat):
    return quat * jnp.array([-1, -1, -1, 1], dtype=quat.dtype)


@_one('(n)->()')
def _angle(quat):
    return 2. * jnp.arctan2(_norm(quat[:3]), jnp.abs(quat[3]))


@_one('(n),(n)->(n)')
def _quat_product(p, q):
    """The Hamilton product p q: rotation q, then p."""
    c = jnp.cross(p[:3], q[:3])
    return jnp.array([p[3] * q[0] + q[3] * p[0] + c[0],
                      p[3] * q[1] + q[3] * p[1] + c[1],
                      p[3] * q[2] + q[3] * p[2] + c[2],
                      p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2]])


@_one('(m)->(n,n)')
def _matrix_from_quat(quat):
    x, y, z, w = quat[0], quat[1], quat[2], quat[3]
    xx, yy, zz, ww = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    return jnp.array([[+ xx - yy - zz + ww, 2 * (xy - zw), 2 * (xz + yw)],
                      [2 * (xy + zw), - xx + yy - zz + ww, 2 * (yz - xw)],
                      [2 * (xz - yw), 2 * (yz + xw), - xx - yy + zz + ww]])


@_one('(m,m),(m),()->(m)')
def _rotate(matrix, vector, inverse):
    return jnp.where(inverse, matrix.T, matrix) @ vector


@_one('(m,m)->(n)')
def _quat_from_matrix(matrix):
    """Shepperd's method, as SciPy's: the quaternion built around the largest of the diagonal
    and the trace, the best conditioned of the four."""
    trace = matrix[0, 0] + matrix[1, 1] + matrix[2, 2]
    pick = jnp.array([matrix[0, 0], matrix[1, 1], matrix[2, 2], trace], dtype=matrix.dtype)
    i = jnp.argmax(pick)
    j = (i + 1) % 3
    k = (j + 1) % 3
    # a diagonal element is largest: the quaternion from column i
    from_diagonal = jnp.empty(4, dtype=matrix.dtype)
    from_diagonal = from_diagonal.at[i].set(1 - pick[3] + 2 * matrix[i, i])
    from_diagonal = from_diagonal.at[j].set(matrix[j, i] + matrix[i, j])
    from_diagonal = from_diagonal.at[k].set(matrix[k, i] + matrix[i, k])
    from_diagonal = from_diagonal.at[3].set(matrix[k, j] - matrix[j, k])
    # the trace is largest: the quaternion from the antisymmetric part
    from_trace = jnp.empty(4, dtype=matrix.dtype)
    from_trace = from_trace.at[0].set(matrix[2, 1] - matrix[1, 2])
    from_trace = from_trace.at[1].set(matrix[0, 2] - matrix[2, 0])
    from_trace = from_trace.at[2].set(matrix[1, 0] - matrix[0, 1])
    from_trace = from_trace.at[3].set(1 + pick[3])
    return _normalized(jnp.where(i != 3, from_diagonal, from_trace))


@_one('(m)->(n)')
def _quat_from_mrp(mrp):
    denominator = jnp.dot(mrp, mrp) + 1
    return jnp.hstack([2 * mrp[:3], (2 - denominator)]) / denominator


@_one('(m)->(n)')
def _mrp_from_quat(quat):
    sign = jnp.where(quat[3] < 0, -1., 1.)     # the MRP of the quaternion with w >= 0
    return sign * quat[:3] / (1. + sign * quat[3])


@_one('(m),()->(n)')
def _quat_from_rotvec(rotvec, degrees):
    rotvec = jnp.where(degrees, jnp.deg2rad(rotvec), rotvec)
    angle = _norm(rotvec)
    a2 = angle * angle
    # sin(angle/2)/angle, by its Taylor series near 0 where the quotient loses its digits
    series = 0.5 - a2 / 48 + a2 * a2 / 3840
    scale = jnp.where(angle <= 1e-3, series, jnp.sin(angle / 2) / angle)
    return jnp.hstack([scale * rotvec, jnp.cos(angle / 2)])


@_one('(m),()->(n)')
def _rotvec_from_quat(quat, degrees):
    quat = jnp.where(quat[3] < 0, -quat, quat)    # w >= 0, so the angle is in [0, pi]
    angle = 2. * jnp.arctan2(_norm(quat[:3]), quat[3])
    a2 = angle * angle
    # angle/sin(angle/2), by its Taylor series near 0
    series = 2 + a2 / 12 + 7 * a2 * a2 / 2880
    scale = jnp.where(angle <= 1e-3, series, angle / jnp.sin(angle / 2))
    scale = jnp.where(degrees, jnp.rad2deg(scale), scale)
    return scale * jnp.array(quat[:3])


@_one('(),()->(n)')
def _axis_quat(axis, angle):
    """The rotation by `angle` about the basis axis number `axis`."""
    quat = jnp.zeros(4, dtype=angle.dtype)
    return quat.at[3].set(jnp.cos(angle / 2.)).at[axis].set(jnp.sin(angle / 2.))


@_one('(m),(m),(),()->(n)')
def _quat_from_euler(angles, axes, intrinsic, degrees):
    angles = jnp.where(degrees, jnp.deg2rad(angles), angles)
    quat = _axis_quat(axes[0], angles[0])
    for n in range(1, len(axes)):
        step = _axis_quat(axes[n], angles[n])
        # intrinsic axes move with the body: each turn is applied in the frame already turned
        quat = jnp.where(intrinsic, _quat_product(quat, step), _quat_product(step, quat))
    return quat


@_one('(m),(l),(),()->(n)')
def _euler_from_quat(quat, axes, extrinsic, degrees):
    """Bernardes and Viollet's quaternion-to-Euler method, as SciPy's, written without
    branches: the gimbal-locked cases are chosen by `where`."""
    first = jnp.where(extrinsic, 0, 2)
    third = jnp.where(extrinsic, 2, 0)
    axes = jnp.where(extrinsic, axes, axes[::-1])
    i, j, k = axes[0], axes[1], axes[2]
    symmetric = i == k                   # a proper Euler sequence such as zxz
    k = jnp.where(symmetric, 3 - i - j, k)
    sign = jnp.array((i - j) * (j - k) * (k - i) // 2, dtype=quat.dtype)
    eps = 1e-7
    a = jnp.where(symmetric, quat[3], quat[3] - quat[j])
    b = jnp.where(symmetric, quat[i], quat[i] + quat[k] * sign)
    c = jnp.where(symmetric, quat[j], quat[j] + quat[3])
    d = jnp.where(symmetric, quat[k] * sign, quat[k] * sign - quat[i])
    angles = jnp.empty(3, dtype=quat.dtype)
    angles = angles.at[1].set(2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b)))
    # 0: no gimbal lock; 1: the middle angle is 0; 2: it is pi
    case = jnp.where(jnp.abs(angles[1] - np.pi) <= eps, 2, 0)
    case = jnp.where(jnp.abs(angles[1]) <= eps, 1, case)
    half_sum = jnp.arctan2(b, a)
    half_diff = jnp.arctan2(d, c)
    # locked: the first angle takes the whole turn (the third stays 0)
    angles = angles.at[0].set(jnp.where(case == 1, 2 * half_sum,
                                        2 * half_diff * jnp.where(extrinsic, -1, 1)))
    angles = angles.at[first].set(jnp.where(case == 0, half_sum - half_diff, angles[first]))
    angles = angles.at[third].set(jnp.where(case == 0, half_sum + half_diff, angles[third]))
    angles = angles.at[third].set(jnp.where(symmetric, angles[third], angles[third] * sign))
    angles = angles.at[1].set(jnp.where(symmetric, angles[1], angles[1] - np.pi / 2))
    angles = (angles + np.pi) % (2 * np.pi) - np.pi      # into [-pi, pi)
    return jnp.where(degrees, jnp.rad2deg(angles), angles)


@_one('(n)->(n)')
def _canonical(quat):
    """The sign of the quaternion that makes its first nonzero of (w, x, y, z) positive."""
    neg, zero = quat < 0, quat == 0
    flip = (neg[3] | (zero[3] & neg[0]) | (zero[3] & zero[0] & neg[1])
            | (zero[3] & zero[0] & zero[1] & neg[2]))
    return jnp.where(flip, -quat, quat)
