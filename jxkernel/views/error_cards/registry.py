"""Which card an exception gets: `CARDS`, tried in order, the first whose test passes (an
entry's comment says why it stands before another), and `AT_THE_OPERATION`, the cards whose
"your line" is the staged operation's. The kinds, each with the errors it explains:

bool-conversion (TracerBoolConversionError), concretization (ConcretizationTypeError),
integer-conversion (TracerIntegerConversionError), array-conversion (TracerArrayConversionError),
leaked-tracer (UnexpectedTracerError), unhashable-static (ValueError: non-hashable static
argument), vmap-sizes (ValueError: inconsistent sizes along in_axes), vmap-rank (ValueError:
in_axes names an axis an argument has not), vmap-out-axes (ValueError: out_axes names an axis past
the function's output), loop-carry (TypeError: a scan/while_loop/fori_loop carry changing type, a
PRNG key's kind too), boolean-index (NonConcreteBooleanIndexError), immutable-array (TypeError:
`x[i] = v`; NumPy's in-place ways, `x.fill(0)`, `np.add.at(x, i, 1)`), readonly-view (ValueError:
NumPy's "assignment destination is read-only" of `a[i] = v`, `a` a NumPy view of a JAX array, `a =
np.asarray(x)`), key-reuse (KeyReuseError, with jax_debug_key_reuse), jit-method (TypeError:
`@jax.jit` on a method, its `self` no array), traced-slice (IndexError: `x[:n]` with a traced
bound), seed-as-key (TypeError: a seed given to jax.random where a key goes), integer-grad-input
(TypeError: grad of an int), grad-output (TypeError: grad of a function whose output is not one
number), aux-output (TypeError: has_aux=True, f returning one value or a tuple of 3),
scalar-conversion (TypeError: int(x)/float(x)/complex(x) of an array with dimensions),
broadcast-shapes (elementwise operands that do not broadcast), matmul-shapes (TypeError: a matrix
product whose inner sizes differ; ValueError: of a 0-d operand), not-an-array (TypeError: a string,
a function or another object passed to a jitted function where jit traces it), cond-predicate
(TypeError: lax.cond given a condition per element), while-grad (ValueError: grad of a while_loop,
or of a fori_loop with traced bounds), reshape-size (TypeError: a reshape to another size, or with
two -1s), uneven-split (ValueError: jnp.split into pieces that do not divide the axis), lax-dtypes
(TypeError: a lax operation given two dtypes, or integers where it takes floats alone,
`jax.nn.sigmoid(labels)`), integer-power (TypeError: an integer array to a negative power),
float-index (TypeError: an array indexed by a float), vmap-in-axes (ValueError: an in_axes tuple of
another length than the arguments, or a dict of other keys than its argument's; TypeError: in_axes
given as a dict keyed by the parameters' names), body-arguments (TypeError: a loop body or branch
written to take other arguments than lax passes it), tree-structure (ValueError: tree_map given
trees of two structures; a pair passed whole, as value_and_grad's (value, grads), is told with the
part to pass), tree-map-arguments (TypeError: a function given to tree_map another number of trees
than it takes arguments, `jax.tree.map(lambda p, g: ..., params)`), call-arity (TypeError: grad's,
jit's or vmap's function called with other arguments than it takes), grad-unpacked (ValueError:
grad's result unpacked otherwise), aux-pair (TypeError: has_aux's pair as the gradient), grad-order
(TypeError: its parts unpacked in another order), split-count (ValueError: split's keys unpacked
into other names), stacked-index (KeyError: vmap's stacked dict indexed as a list),
one-hot-classes, int-overflow, flax-rngs (Flax's rngs given a seed), flax-optimizer, removed-name
(older JAX's names, jax.ops.index_update), axis-bounds (ValueError or IndexError: an axis the array
has not, `x.sum(axis=1)` of a vector; a squeeze of an axis whose size is not 1), scan-lengths
(ValueError: scan's xs leaves of different lengths, or a `length=` that disagrees with xs;
ValueError or IndexError: xs a number, `lax.scan(f, init, 10)`; ValueError: neither xs nor length,
`lax.scan(f, init)`), einsum-labels (ValueError: jnp.einsum's subscripts giving one letter two
sizes, `jnp.einsum('ij,jk->ik', a, b)` of a (2, 3) a and a (4, 5) b), einsum-axes (ValueError:
jnp.einsum's subscripts with another number of letters than an operand has axes,
`jnp.einsum('ij,jk->ik', a, b)` of a (2, 3, 4) a), einsum-output (ValueError: jnp.einsum's result
subscripts naming a letter no operand has or one letter twice, `jnp.einsum('ij->ik', a)`,
`jnp.einsum('i->ii', v)`), ragged-array (ValueError or TypeError: jnp.array given rows of different
lengths), list-argument (TypeError: a Python list or tuple given to a jnp function),
while-per-element (TypeError: a while_loop condition giving one bool per element), while-condition
(TypeError: a while_loop condition giving a number, `lambda c: c`), float-shape (TypeError: a shape
given a float, `jnp.zeros(n / 2)`), slice-indices (TypeError or ValueError: lax.dynamic_slice /
dynamic_update_slice given a number where a tuple per axis goes), scan-output (TypeError: a scan
body returning one value or three, not (carry, y)), fori-bounds (TypeError: lax.fori_loop given a
float bound, `lax.fori_loop(0, n / 2, ...)`), switch-index (TypeError: lax.switch given a float
index, `lax.switch(n / 2, branches)`), branch-types (TypeError: lax.cond or lax.switch branches
returning different dtypes, shapes or structures, or keys of two kinds), concatenate-ranks
(TypeError or ValueError: jnp.concatenate, hstack, stack or lax.concatenate given arrays of
different numbers of dimensions, a vector and a matrix), join-shapes (ValueError or TypeError:
jnp.stack given arrays of two shapes, (3,) and (4,), or jnp.concatenate given arrays that differ on
an axis it does not join along), list-operand (TypeError: an array's operator given a Python list
or tuple, `x + [1, 2]`), list-index (TypeError: an array indexed by a Python list, `x[[0, 2]]`),
truth-value (ValueError: an array of several booleans where Python needs one, `if x > 0:` of a
vector, `max(v, 0.0)`), random-arguments (TypeError: a jax.random function called with NumPy's
arguments, size=, low=/high=, loc=/scale=, randint(key, 0, 10) without its shape), shape-arguments
(TypeError or ValueError: a shape given number by number, `jnp.zeros(3, 4)`), keyword-option
(TypeError: an option JAX takes by keyword only given by position, `jax.jit(f, 1)`),
elementwise-max (ValueError or TypeError: `jnp.max(a, b)` as Python's max of two, b read as an
axis), key-unpack (TypeError: `k1, k2 = key`, a key iterated), raw-key-unpacked (TypeError: a word
of a raw key, `k1, k2 = PRNGKey(0)`, given as a key), numpy-random (AttributeError:
`jnp.random.normal(size=3)`, NumPy's random module asked of jax.numpy, or its legacy names of
jax.random, `jax.random.randn(3)`), torch-habit (AttributeError, TypeError: PyTorch's name asked of
an array or of jax.numpy, `x.unsqueeze(0)`, `x.sum(dim=1)`, `jnp.cat`), numpy1-name
(AttributeError: `jnp.in1d`, `jnp.NaN`, NumPy 1.x's names), debug-print (ValueError, TypeError,
KeyError, ConcretizationTypeError: jax.debug.print called as print is, `jax.debug.print("x =", x)`,
`jax.debug.print(x)`, `"%f" % x`), custom-vjp-bwd (TypeError: a custom_vjp's bwd returning a bare
value or another number of cotangents than the function has arguments), custom-jvp-pair (TypeError:
a jvp rule returning one value or three), custom-jvp-signature (TypeError: `def f_jvp(x, y, tx,
ty)`, one parameter per value), custom-vjp-fwd (TypeError: a custom_vjp's fwd returning its output
alone), checkpoint-policy (AttributeError or TypeError: a jax.checkpoint_policies name misspelled,
or `policy='dots_saveable'`, a name for the function), static-given-again (TypeError: a
`.lower(...).compile()`d function called with its static argument again, `compiled(7, 8)` for
`jax.jit(f, static_argnums=0).lower(7, 8)`), unregistered-class (TypeError: an object of the
learner's class, no registered pytree, given to grad, value_and_grad or vmap, or passed whole by
tree_map to its function), checkify-unwrapped (ValueError: checkify.check under jit without
checkify.checkify), integer-grad-output (TypeError: grad of a function returning an int, `jnp.sum(x
> 0)`), key-batch (ValueError: a jax.random function given split's array of keys where one goes),
key-wrapped (TypeError: wrap_key_data given a typed key; the seed-as-key card's words), jnp-static
(ValueError: a traced value where a jnp function takes a static one, jnp.vander's N or jnp.sort's
axis: its inner jit cannot hash it), jnp-unhashable (ValueError: a list or an array there,
jnp.pad's stat_length=[1, 2]: the line rewritten with a number or a tuple), traced-parameter
(TypeError: a traced value in a primitive's parameter, jnp.tile's reps), traced-hash (TypeError: a
traced array as a dict key, a set member or hash()'s argument), unbound-axis (NameError: a
collective over an axis nothing binds, `jax.lax.psum(x, 'i')` outside shard_map, or an axis the
mesh has not), mesh-mismatch (ValueError: an operand on another mesh than jax.set_mesh's, arrays
put on four devices' mesh added under set_mesh of all eight), late-device-count (RuntimeError:
jax_num_cpu_devices updated once the backend runs), layer-features (TypeError or ValueError: a
layer, Flax's nnx.Linear or nnx.Conv, given an input whose last axis is not its in_features,
`nnx.Linear(784, 10)` on (4, 28, 28) images), dropout-rngs (ValueError: Flax's nnx.Dropout in
training mode called with no random key, `model(x)` after model.train()), closed-modules
(ValueError: a model or optimizer read from outside a jax.jit function and updated inside it,
Flax's "Cannot extract graph node from different trace level"), equinox-jit (TypeError: jax.jit of
a function given an Equinox model, its non-array fields no arrays: eqx.filter_jit), equinox-grad
(TypeError: jax.grad of a loss given an Equinox model: eqx.filter_grad), equinox-batch (TypeError
or ValueError: a batch given to an Equinox layer or model, which takes one example:
jax.vmap(model)(x)), equinox-frozen (FrozenInstanceError: a field of an Equinox model assigned:
eqx.tree_at), equinox-array-field (TracerIntegerConversionError and its kin: a field of the
learner's eqx.Module built as an array, `jnp.array(1)`, read as a Python int under jit: a Python
int, eqx.field(static=True)), equinox-features (TypeError: one example of another size given to
eqx.nn.Linear, `eqx.nn.Linear(784, 10)` on (785,)), check-format-args (TypeError: checkify.check
given a Python number to format, `i=i` in a checkified function called with an int, not jitted),
traced-format (TypeError: a format spec given a traced value, `print(f'{x:.2f}')` under jit, grad
or vmap: jax.debug.print), pmap-devices (ValueError or IndivisibleError: pmap given an axis longer
than the devices), pmap-sizes (ValueError: pmap given mapped axes of two sizes, a w with no axis
per device: in_axes None for it), debug-nans (FloatingPointError: jax_debug_nans or jax_debug_infs
at the operation that made one: the values it was given, `jnp.log(y)` of y = -2.0), real-jax-array
(TypeError or an error inside JAX: the real JAX, imported by a library such as Optax, given
jxkernel's array where the learner's jax is jxkernel).
"""
from __future__ import annotations

from ...core import errors as jx_errors
from .array_calls import (_is_matmul_0d, _is_uneven_split, _matmul_0d_card,
                          _uneven_split_card)
from .axes import _axis_bounds_card, _is_axis_bounds, _is_squeeze_size, _squeeze_card
from .einsum_axes import _einsum_axes_card, _is_einsum_axes
from .einsum_labels import _einsum_labels_card, _is_einsum_labels
from .einsum_output import _einsum_output_card, _is_einsum_output
from .check_arguments import _check_format_args_card, _is_check_format_args
from .checks import _checkify_unwrapped_card, _is_checkify_unwrapped
from .collectives import _is_unbound_axis, _unbound_axis_card
from .meshes import _is_mesh_mismatch, _mesh_mismatch_card
from .real_jax import _is_real_jax_array, _real_jax_array_card
from .nans import _debug_nans_card, _is_debug_nans
from .devices import (_is_late_device_count, _is_pmap_devices, _is_pmap_sizes,
                      _late_device_count_card, _pmap_devices_card, _pmap_sizes_card)
from .custom_rules import (_bwd_structure_card, _fwd_pair_card, _is_bwd_structure,
                           _is_fwd_pair, _is_jvp_pair,
                           _is_jvp_signature, _is_policy_misspelled, _is_policy_string,
                           _jvp_pair_card, _jvp_signature_card, _policy_misspelled_card,
                           _policy_string_card)
from .lowered_calls import _is_static_given_again, _static_again_card
from .branches import _is_several_off, _several_card
from .carries import _branch_structure_card, _is_branch_structure
from .body_arguments import _body_arguments_card, _is_body_arguments
from .call_arity import _call_arity_card, _is_call_arity
from .control_flow import (_branch_card, _carry_card, _is_branch_types, _is_carry_error,
                           _is_scan_output, _is_while_grad, _scan_output_card, _while_grad_card)
from .element_choices import (_cond_predicate_card, _is_cond_predicate, _is_max_of_two,
                              _is_switch_per_element, _is_where_of_two, _max_of_two_card,
                              _switch_per_element_card, _where_of_two_card)
from .grad import (_aux_shape_card, _int_grad_card, _int_grad_output_card, _is_aux_shape,
                   _is_int_grad_input, _is_int_grad_output, _is_scalar_output,
                   _scalar_output_card)
from .hashes import (_is_traced_hash, _is_traced_parameter, _traced_hash_card,
                     _traced_parameter_card)
from .jnp_statics import (_is_jnp_static, _is_jnp_unhashable, _jnp_static_card,
                          _jnp_unhashable_card)
from .dropout import _dropout_rngs_card, _is_dropout_rngs
from .equinox import (_batch_into_layer_card, _frozen_field_card, _grad_of_module_card,
                      _is_batch_into_layer, _is_frozen_field, _is_grad_of_module,
                      _is_jit_of_module, _is_linear_features, _is_traced_field,
                      _jit_of_module_card, _linear_features_card, _traced_field_card)
from .closed_modules import _closed_modules_card, _is_closed_modules
from .conversions import _format_card, _is_traced_format
from .layers import _is_layer_features, _layer_features_card
from .join_shapes import _is_join_shapes, _join_shapes_card
from .join_arguments import _is_join_arguments, _join_arguments_card
from .shape_arguments import _is_shape_arguments, _shape_arguments_card
from .keyword_options import _is_keyword_option, _keyword_option_card
from .missing_keys import _is_missing_key, _missing_key_card
from .device_names import (_device_index_card, _device_name_card, _is_device_index,
                           _is_device_name)
from .autodiff_calls import (_aux_pair_card, _grad_unpacked_card, _is_aux_pair_used,
                             _is_grad_unpacked, _is_jvp_tuples, _is_pair_called,
                             _jvp_tuples_card, _pair_called_card)
from .solve_shapes import (_is_solve_shapes, _is_square_matrix, _solve_shapes_card,
                           _square_matrix_card)
from .tree_arithmetic import (_is_stacked_index, _is_tree_arithmetic, _stacked_index_card,
                              _tree_arithmetic_card)
from .state_classes import (_field_set_card, _flatten_pair_card, _is_field_set,
                            _is_flatten_pair)
from .update_shapes import _is_update_shape, _update_shape_card
from .joins import _is_join_ranks, _join_ranks_card
from .list_arguments import (_is_list_argument, _is_list_index, _is_list_operand,
                             _list_argument_card, _list_index_card, _list_operand_card)
from .loop_conditions import (_is_while_not_bool, _is_while_per_element,
                              _while_not_bool_card, _while_per_element_card)
from .key_reuse import _key_reuse_card
from .key_types import _is_key_types, _key_types_card
from .keys import (_is_key_batch, _is_key_unpacked, _is_numpy_random_module, _is_raw_key_word,
                   _is_seed_as_key, _key_batch_card, _key_unpack_card, _numpy_random_module_card,
                   _raw_key_word_card)
from .random_arguments import _is_numpy_order, _is_numpy_random, _numpy_random_card
from .seed_keys import _seed_card
from .methods import _is_method_self, _method_card
from .objects import (_is_text_leaf, _is_unregistered_object, _text_leaf_card,
                      _unregistered_object_card)
from .operand_dtypes import (_float_index_card, _float_shape_card, _floats_only_card,
                             _fori_bounds_card, _int_power_card, _is_float_index,
                             _is_float_shape, _is_floats_only,
                             _is_fori_bounds, _is_int_power, _is_lax_clamp_or_select,
                             _is_lax_dtypes, _is_switch_index, _lax_clamp_or_select_card,
                             _lax_dtypes_card, _switch_index_card)
from .operand_shapes import _broadcast_card, _is_broadcast_error, _is_matmul_shapes, _matmul_card
from .ragged import _is_ragged, _ragged_card
from .reshapes import (_is_reshape_size, _is_reshape_unknowns, _reshape_card,
                       _reshape_unknowns_card)
from .slice_indices import _is_slice_indices, _slice_indices_card
from .flax_optimizer import _flax_optimizer_card, _is_flax_optimizer
from .flax_rngs import _flax_rngs_card, _is_flax_rngs
from .int_overflow import _int_overflow_card, _is_int_overflow
from .one_hot import _is_one_hot_classes, _one_hot_card
from .removed_names import _is_removed_name, _removed_name_card
from .torch_habits import _is_torch_habit, _is_torch_repeat, _torch_card, _torch_repeat_card
from .debug_prints import (_debug_print_card, _is_debug_print, _is_print_spec_of_array,
                           _print_spec_of_array_card)
from .numpy_names import _clip_keyword_card, _is_clip_keyword, _is_numpy1_name, _numpy1_card
from .in_place_methods import _in_place_card, _is_numpy_in_place
from .scan_lengths import _is_scan_lengths, _scan_lengths_card
from .scalars import _is_scalar_conversion, _scalar_conversion_card
from .readonly_views import _is_readonly_view, _readonly_view_card
from .shapes import (_boolean_index_card, _immutable_card, _is_item_assignment,
                     _is_size_needed, _is_traced_slice, _size_card, _slice_card)
from .static import _is_not_an_array, _is_unhashable, _not_an_array_card, _unhashable_card
from .tracer import (_array_card, _bool_card, _concretization_card, _is_traced_shape_error,
                     _leaked_card)
from .conv_layouts import _conv_layout_card, _is_conv_layout
from .image_shapes import _image_shape_card, _is_image_shape
from .optimizers import (_integer_labels_card, _is_integer_labels, _is_optimizer_words,
                         _is_update_without_state, _optimizer_words_card, _update_state_card)
from .trees import (_is_tree_map_arguments, _is_tree_structure, _tree_map_arguments_card,
                    _tree_structure_card)
from .truth import _is_truth_value, _truth_value_card
from .vmap import (_in_axes_dict_card, _in_axes_length_card, _is_in_axes_dict,
                   _is_in_axes_length, _is_vmap_out_axes, _is_vmap_rank, _is_vmap_sizes,
                   _vmap_card, _vmap_out_axes_card, _vmap_rank_card)
from .in_axes_keys import _in_axes_keys_card, _is_in_axes_keys


# cards whose "your line" is the operation's (the check's), not the call that compiled it
AT_THE_OPERATION = (_checkify_unwrapped_card, _debug_nans_card)

CARDS = [
    # first: the real JAX's own words ("is not a valid JAX type") would match jxkernel's cards
    (_is_real_jax_array, _real_jax_array_card),
    (_is_traced_field, _traced_field_card),     # before the tracer cards: Equinox's way
    (lambda e: isinstance(e, jx_errors.TracerBoolConversionError), _bool_card),
    (_is_debug_print, _debug_print_card),   # before the concretization card: `"%f" % x`
    (_is_print_spec_of_array, _print_spec_of_array_card),
    (_is_size_needed, _size_card),          # before the general concretization card
    (lambda e: isinstance(e, (jx_errors.ConcretizationTypeError,
                              jx_errors.TracerIntegerConversionError)), _concretization_card),
    (_is_traced_shape_error, _concretization_card),
    (_is_numpy_order, _numpy_random_card),     # before array-conversion's: its words
    (lambda e: isinstance(e, jx_errors.TracerArrayConversionError), _array_card),
    (lambda e: isinstance(e, jx_errors.UnexpectedTracerError), _leaked_card),
    (_is_unhashable, _unhashable_card),
    (_is_vmap_sizes, _vmap_card),
    (_is_vmap_rank, _vmap_rank_card),
    (_is_vmap_out_axes, _vmap_out_axes_card),
    (_is_in_axes_length, _in_axes_length_card),
    (_is_in_axes_dict, _in_axes_dict_card),
    (_is_in_axes_keys, _in_axes_keys_card),
    (_is_key_types, _key_types_card),       # before the dtype casts: no key is cast so
    (_is_carry_error, _carry_card),
    (_is_several_off, _several_card),       # before the pair's: every branch at once
    (_is_branch_types, _branch_card),
    (_is_branch_structure, _branch_structure_card),
    (_is_cond_predicate, _cond_predicate_card),
    (_is_switch_per_element, _switch_per_element_card),
    (_is_where_of_two, _where_of_two_card),
    (_is_while_grad, _while_grad_card),
    (_is_body_arguments, _body_arguments_card),
    (_is_tree_map_arguments, _tree_map_arguments_card),
    (_is_call_arity, _call_arity_card),
    (_is_conv_layout, _conv_layout_card),
    (_is_image_shape, _image_shape_card),
    (_is_optimizer_words, _optimizer_words_card),
    (_is_update_without_state, _update_state_card),
    (lambda e: isinstance(e, jx_errors.NonConcreteBooleanIndexError), _boolean_index_card),
    (_is_item_assignment, _immutable_card),
    (_is_readonly_view, _readonly_view_card),
    (lambda e: isinstance(e, jx_errors.KeyReuseError), _key_reuse_card),
    (_is_method_self, _method_card),
    (_is_jit_of_module, _jit_of_module_card),   # before not-an-array's: Equinox's way
    (_is_not_an_array, _not_an_array_card),     # after the method's self
    (_is_traced_slice, _slice_card),
    (_is_raw_key_word, _raw_key_word_card),     # before the seed's: the same words
    (_is_missing_key, _missing_key_card),       # before the seed's: a float, a vector
    (_is_seed_as_key, _seed_card),
    (_is_int_grad_input, _int_grad_card),
    (_is_jvp_tuples, _jvp_tuples_card),
    (_is_pair_called, _pair_called_card),
    (_is_grad_unpacked, _grad_unpacked_card),
    (_is_scalar_output, _scalar_output_card),
    (_is_aux_shape, _aux_shape_card),
    (_is_scalar_conversion, _scalar_conversion_card),
    (_is_update_shape, _update_shape_card),     # before broadcast's: an .at update's
    (_is_solve_shapes, _solve_shapes_card),
    (_is_square_matrix, _square_matrix_card),      # (before the broadcast card: its sum's)
    (_is_integer_labels, _integer_labels_card),    # (and Optax's product inside its loss)
    (_is_broadcast_error, _broadcast_card),
    (_is_batch_into_layer, _batch_into_layer_card),  # before the layer's and matmul's
    (_is_linear_features, _linear_features_card),
    (_is_layer_features, _layer_features_card),  # before matmul's: the layer's words
    (_is_matmul_shapes, _matmul_card),
    (_is_shape_arguments, _shape_arguments_card),  # before reshape's, random arguments'
    (_is_reshape_size, _reshape_card),
    (_is_reshape_unknowns, _reshape_unknowns_card),
    (_is_matmul_0d, _matmul_0d_card),
    (_is_einsum_labels, _einsum_labels_card),
    (_is_einsum_axes, _einsum_axes_card),
    (_is_einsum_output, _einsum_output_card),
    (_is_uneven_split, _uneven_split_card),
    (_is_lax_dtypes, _lax_dtypes_card),
    (_is_floats_only, _floats_only_card),
    (_is_lax_clamp_or_select, _lax_clamp_or_select_card),
    (_is_int_power, _int_power_card),
    (_is_float_index, _float_index_card),
    (_is_tree_structure, _tree_structure_card),
    (_is_aux_pair_used, _aux_pair_card),      # before tree arithmetic's: has_aux's pair
    (_is_tree_arithmetic, _tree_arithmetic_card),
    (_is_stacked_index, _stacked_index_card),
    (_is_max_of_two, _max_of_two_card),    # before the axis's, join's: its b an axis
    (_is_torch_repeat, _torch_repeat_card),  # before the axis's: PyTorch's tile
    (_is_axis_bounds, _axis_bounds_card),
    (_is_scan_lengths, _scan_lengths_card),
    (_is_ragged, _ragged_card),
    (_is_list_argument, _list_argument_card),
    (_is_list_operand, _list_operand_card),
    (_is_list_index, _list_index_card),
    (_is_truth_value, _truth_value_card),
    (_is_keyword_option, _keyword_option_card),
    (_is_numpy_random, _numpy_random_card),
    (_is_key_unpacked, _key_unpack_card),
    (_is_numpy_random_module, _numpy_random_module_card),
    (_is_device_name, _device_name_card),
    (_is_device_index, _device_index_card),
    (_is_torch_habit, _torch_card),
    (_is_one_hot_classes, _one_hot_card),
    (_is_int_overflow, _int_overflow_card),
    (_is_join_arguments, _join_arguments_card),
    (_is_numpy1_name, _numpy1_card),
    (_is_removed_name, _removed_name_card),
    (_is_clip_keyword, _clip_keyword_card),
    (_is_numpy_in_place, _in_place_card),
    (_is_while_per_element, _while_per_element_card),
    (_is_while_not_bool, _while_not_bool_card),
    (_is_float_shape, _float_shape_card),
    (_is_slice_indices, _slice_indices_card),
    (_is_scan_output, _scan_output_card),
    (_is_fori_bounds, _fori_bounds_card),
    (_is_switch_index, _switch_index_card),
    (_is_join_ranks, _join_ranks_card),
    (_is_join_shapes, _join_shapes_card),
    (_is_bwd_structure, _bwd_structure_card),
    (_is_jvp_pair, _jvp_pair_card),
    (_is_fwd_pair, _fwd_pair_card),
    (_is_jvp_signature, _jvp_signature_card),
    (_is_policy_misspelled, _policy_misspelled_card),
    (_is_policy_string, _policy_string_card),
    (_is_static_given_again, _static_again_card),
    (_is_unregistered_object, _unregistered_object_card),
    (_is_text_leaf, _text_leaf_card),
    (_is_flatten_pair, _flatten_pair_card),
    (_is_field_set, _field_set_card),
    (_is_checkify_unwrapped, _checkify_unwrapped_card),
    (_is_check_format_args, _check_format_args_card),
    (_is_int_grad_output, _int_grad_output_card),
    (_is_key_batch, _key_batch_card),
    (_is_jnp_static, _jnp_static_card),
    (_is_jnp_unhashable, _jnp_unhashable_card),
    (_is_traced_parameter, _traced_parameter_card),
    (_is_traced_hash, _traced_hash_card),
    (_is_traced_format, _format_card),
    (_is_unbound_axis, _unbound_axis_card),
    (_is_mesh_mismatch, _mesh_mismatch_card),
    (_is_late_device_count, _late_device_count_card),
    (_is_pmap_devices, _pmap_devices_card),
    (_is_pmap_sizes, _pmap_sizes_card),
    (_is_squeeze_size, _squeeze_card),      # after pmap's: its splitting says a squeeze's words
    (_is_debug_nans, _debug_nans_card),
    (_is_dropout_rngs, _dropout_rngs_card),
    (_is_flax_rngs, _flax_rngs_card),
    (_is_flax_optimizer, _flax_optimizer_card),
    (_is_closed_modules, _closed_modules_card),
    (_is_grad_of_module, _grad_of_module_card),
    (_is_frozen_field, _frozen_field_card),
]
