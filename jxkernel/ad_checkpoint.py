"""jxkernel.ad_checkpoint, as jax.ad_checkpoint: checkpoint (remat), checkpoint_name and the
checkpoint policies, which choose the intermediates the backward pass keeps.

    >>> from jxkernel.ad_checkpoint import checkpoint, checkpoint_name, checkpoint_policies
    >>> f = checkpoint(lambda x: jnp.sin(jnp.sin(x)), policy=checkpoint_policies.dots_saveable)
"""
from .transforms.remat import (checkpoint, checkpoint_dots,  # noqa: F401
                               checkpoint_dots_with_no_batch_dims, checkpoint_name,
                               checkpoint_policies, dots_saveable,
                               dots_with_no_batch_dims_saveable, everything_saveable,
                               nothing_saveable, remat, save_any_names_but_these,
                               save_anything_except_these_names, save_from_both_policies,
                               save_only_these_names)
