"""PyTorch's error and warning texts, in one place, so every raise matches torch word for word."""

from __future__ import annotations

import re

BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
IMPLICIT_GRAD_SCALAR = "grad can be implicitly created only for scalar outputs"
BOOL_SUB_MIXED = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."
)
SAVED_DETACHED = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This "
    "is not supported, please use out-of-place `.detach()` instead"
)
INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
INDEX_PUT_EXPANDED = (
    "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = "
    "tensor"
)
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
LEAF_VIEW_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
REQUIRES_GRAD_DTYPE_CTOR = "Only Tensors of floating point and complex dtype can require gradients"
REQUIRES_GRAD_DTYPE = "only Tensors of floating point dtype can require gradients"
REQUIRES_GRAD_DTYPE_SETTER = (
    "only Tensors of floating point and complex dtype can require gradients"
)
REQUIRES_GRAD_NONLEAF = "you can only change requires_grad flags of leaf variables."
REQUIRES_GRAD_NONLEAF_OFF = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = "
    "var.detach()."
)
NUMPY_REQUIRES_GRAD = (
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
)
BOOL_SUB = (
    "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
    "`logical_xor()` operator instead."
)
VIEW_NOT_COMPATIBLE = (
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead."
)
NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered "
    "internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)
COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than "
    "torch.tensor(sourceTensor)."
)

_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")
_TYPE_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def tensor_type_name(t) -> str:
    return f"torch.{_TYPE_NAMES[t.dtype.name]}Tensor"


def _type_string(t) -> str:
    """torch's Tensor::toString(): the legacy class name, which bool has none of."""
    return "CPUBoolType" if t.dtype.name == "bool" else tensor_type_name(t)


def _shape_list(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def modified_inplace(t, producer: str | None, expected: int, output_nr: int = 0) -> str:
    where = ""
    if producer is not None:
        # torch names the node without its "Backward<N>" suffix here: "output 0 of Exp"
        short = _BACKWARD_SUFFIX.sub("", producer)
        where = f", which is output {output_nr} of {short},"
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{_type_string(t)} {_shape_list(t.shape)}]{where} is at version "
        f"{t._vc[0]}; expected version {expected} instead. Hint: enable anomaly detection to "
        "find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def size_mismatch(a_size: int, b_size: int, dim: int) -> str:
    return (
        f"The size of tensor a ({a_size}) must match the size of tensor b ({b_size}) at "
        f"non-singleton dimension {dim}"
    )


def grad_size_mismatch(grad_shape, shape) -> str:
    return (
        f"attempting to assign a gradient of size '{_shape_list(grad_shape)}' to a tensor of "
        f"size '{_shape_list(shape)}'. Please ensure that the gradient and the tensor are the "
        "same size"
    )


def unused_input(index: int) -> str:
    return (
        f"The differentiated Tensor at index {index} appears to not have been used in the "
        "graph. Set allow_unused=True if this is the desired behavior."
    )


def no_grad_fn(index: int) -> str:
    return f"element {index} of tensors does not require grad and does not have a grad_fn"


_LOWER_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool"}


def dtype_expected(what: str, expected, got) -> str:
    """torch's check that an argument has the input's dtype (lerp's end and weight)."""
    return (f"expected dtype {_LOWER_NAMES[expected.name]} for `{what}` but got dtype "
            f"{_LOWER_NAMES[got.name]}")


def grad_dtype_mismatch(grad_dtype, dtype) -> str:
    return (
        f"attempting to assign a gradient with dtype '{_LOWER_NAMES[grad_dtype.name]}' to a "
        f"tensor with grad_dtype '{_TYPE_NAMES[dtype.name]}'. The gradient must match the "
        "tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
        "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype "
        "with caution. Diverging the dtypes of a tensor and its gradient may break downstream "
        "systems that assume they match."
    )


CREATE_GRAPH_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)"
)


_MULTI_OUTPUT_VIEW = (
    " This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation by "
    "an out-of-place one."
)
_NO_GRAD_VIEW = (
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block (if "
    "you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked)."
)


_CUSTOM_FUNCTION_VIEW = (
    " This view was created inside a custom Function (or because an input was returned as-is) "
    "and the autograd logic to handle view+inplace would override the custom backward "
    "associated with the custom Function, leading to incorrect gradients. This behavior is "
    "forbidden. You can fix this by cloning the output of the custom Function."
)
_VIEW_SUFFIX = {"multi": _MULTI_OUTPUT_VIEW, "no_grad": _NO_GRAD_VIEW,
                "custom": _CUSTOM_FUNCTION_VIEW}
# ctx.mark_dirty on a view in a Function with several outputs (torch's custom_function.cpp)
DIRTY_VIEW_MANY_OUTPUTS = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one "
    "doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do "
    "this change."
)


def view_inplace(t, fn, indirect: bool) -> str:
    """torch's handle_view_on_rebase: view t (made by a function returning several views,
    with grad mode off, or returned by a custom Function) is being changed in place (indirect:
    its base or another view of it was). fn: the grad_fn t has, or would have had had it been
    recorded, or None."""
    modified = "its base or another view of its base has been" if indirect else "is being"
    creation = t._creation
    name = None if fn is None else _BACKWARD_SUFFIX.sub("", fn.name())
    if creation == "no_grad" or fn is None:
        prefix = ("A view was created in" if fn is None else
                  f"Output {t._output_nr} of {name} is a view of a view which was created in")
        msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"Output {t._output_nr} of {name} is a view and {modified} modified inplace."
    return msg + _VIEW_SUFFIX[creation]


def index_put_dtypes(dst, src) -> str:
    return ("Index put requires the source and destination dtypes match, got "
            f"{_TYPE_NAMES[dst.name]} for the destination and {_TYPE_NAMES[src.name]} for the "
            "source.")


# torch.inference_mode's tensors used where autograd needs them
INFERENCE_SAVE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)
INFERENCE_REQUIRES_GRAD = ("Setting requires_grad=True on inference tensor outside "
                           "InferenceMode is not allowed.")
INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
