"""Oracle scenarios for the ops that move, pick and place elements: engine/ops/reorder.py (flip,
roll, repeat, tile, movedim), gather.py (gather, scatter, scatter_add, index_select,
masked_select), nonzero.py (nonzero, argwhere, one-argument where), split.py (split, chunk),
diagonal.py (diag, diagonal, trace, outer) and einsum.py (the rules of tests/oracle/scenarios.py
apply; its SCENARIOS include these)."""

from __future__ import annotations

from tests.oracle.recorder import collect_scenarios

_M = [[1.0, -2.0, 3.5, 0.25], [4.0, 0.5, -1.0, 2.0], [-3.0, 1.5, 2.5, -0.75]]
_SQ = [[1.0, -2.0, 3.5], [4.0, 0.5, -1.0], [-3.0, 1.5, 2.5]]
_V = [1.5, -2.0, 0.5, 3.0]
_IDX = [[0, 3], [2, 0], [1, 2]]
_REPEATS = [[0, 1, 0, 2], [1, 1, 2, 0]]


def _grads(torch, rec, tag, y, xs):
    """Gradients of (y * w).sum() for a weight w that requires grad, so that the gradients
    have a graph of their own: the op's backward as recorded (its double backward)."""
    w = torch.arange(1.0, y.numel() + 1.0, dtype=y.dtype).reshape(y.shape).requires_grad_()
    grads = torch.autograd.grad((y * w).sum(), xs, create_graph=True, allow_unused=True)
    rec.value(f"{tag} grads", grads)
    for i, g in enumerate(grads):
        if g is not None:
            rec.graph(f"{tag} grad {i} graph", g)


def _check(torch, rec, tag, fn, *data, dtype=None):
    xs = [torch.tensor(d, dtype=dtype, requires_grad=True) for d in data]
    y = fn(*xs)
    rec.value(f"{tag} y", y)
    rec.graph(f"{tag} graph", y)
    _grads(torch, rec, tag, y, xs)


def op_flip_and_roll(torch, rec):
    _check(torch, rec, "flip 0", lambda m: m.flip(0), _M)
    _check(torch, rec, "flip both", lambda m: torch.flip(m, (0, 1)), _M)
    _check(torch, rec, "flip list method", lambda m: m.flip([-1]), _M)
    _check(torch, rec, "fliplr", lambda m: m.fliplr(), _M)
    _check(torch, rec, "flipud", lambda v: torch.flipud(v), _V)
    _check(torch, rec, "roll flat", lambda m: m.roll(5), _M)
    _check(torch, rec, "roll dim", lambda m: torch.roll(m, -1, 0), _M)
    _check(torch, rec, "roll dims", lambda m: m.roll((1, 6), (0, 1)), _M)
    s = torch.tensor(3.0)
    rec.value("flip 0-dim", s.flip(0))
    rec.value("roll 0-dim", s.roll(2))
    rec.value("flip ints", torch.tensor([[1, 2], [3, 4]]).flip(1))
    m = torch.tensor(_M)
    rec.value("flip by keyword", m.flip(dims=[0]))
    rec.raises("flip dims twice", lambda: m.flip(0, dims=[0]))
    rec.value("roll by keyword", torch.roll(m, shifts=1, dims=(0,)))
    rec.raises("flip no dims", lambda: m.flip())
    rec.raises("flip repeated dim", lambda: m.flip(0, -2))
    rec.raises("flip dim out of range", lambda: m.flip(2))
    rec.raises("torch.flip int dims", lambda: torch.flip(m, 1))
    rec.raises("fliplr of a vector", lambda: torch.tensor(_V).fliplr())
    rec.raises("flipud of a number", lambda: s.flipud())
    rec.raises("roll no shifts", lambda: m.roll())
    rec.raises("roll shifts and dims differ", lambda: m.roll((1, 2), 0))
    rec.raises("roll two shifts no dims", lambda: m.roll((1, 2)))
    rec.raises("roll 0-dim with a dim", lambda: s.roll(1, 0))


def op_repeat_tile_movedim(torch, rec):
    _check(torch, rec, "repeat", lambda m: m.repeat(2, 1), _M)
    _check(torch, rec, "repeat new dims", lambda v: v.repeat(2, 1, 3), _V)
    _check(torch, rec, "repeat ones", lambda m: m.repeat([1, 1]), _M)
    _check(torch, rec, "tile", lambda m: m.tile((2,)), _M)
    _check(torch, rec, "torch.tile", lambda v: torch.tile(v, (2, 2)), _V)
    _check(torch, rec, "movedim", lambda m: m.movedim(0, 1), _M)
    _check(torch, rec, "moveaxis lists", lambda m: torch.moveaxis(m.reshape(3, 2, 2), [0, 1],
                                                                 [2, 0]), _M)
    m = torch.tensor(_M)
    rec.value("repeat 0", m.repeat(0, 2))
    rec.value("repeat 0-dim", torch.tensor(3.0).repeat(3))
    rec.value("tile of ints", torch.tensor([1, 2]).tile(2, 1))
    rec.value("tile no reps", m.tile(()))
    rec.value("repeat by keyword", m.repeat(repeats=[1, 2]))
    rec.raises("torch.tile int dims", lambda: torch.tile(m, 2))
    rec.raises("repeat too few", lambda: m.repeat(2))
    rec.raises("repeat negative", lambda: m.repeat(-1, 1))
    rec.raises("repeat nothing", lambda: m.repeat())
    rec.raises("movedim repeated source", lambda: m.movedim((0, 0), (1, 0)))
    rec.raises("movedim repeated destination", lambda: m.movedim((0, 1), (1, 1)))
    rec.raises("movedim tuple and int", lambda: m.movedim((0, 1), 0))
    rec.raises("movedim out of range", lambda: m.movedim(2, 0))


def op_gather_and_scatter(torch, rec):
    idx = torch.tensor(_IDX)
    rep = torch.tensor(_REPEATS)
    _check(torch, rec, "gather", lambda m: m.gather(1, idx), _M)
    _check(torch, rec, "gather repeats", lambda m: torch.gather(m, 0, rep), _M)
    _check(torch, rec, "scatter src", lambda m, s: m.scatter(1, idx, s), _M,
           [[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]])
    _check(torch, rec, "scatter value", lambda m: torch.scatter(m, 1, idx, -1.5), _M)
    _check(torch, rec, "scatter value keyword", lambda m: m.scatter(0, rep, value=2.0), _M)
    _check(torch, rec, "scatter_add", lambda m, s: m.scatter_add(0, rep, s), _M,
           [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    x = torch.tensor(_M, requires_grad=True)
    y = x * 2
    y.scatter_(1, idx, 0.0)
    rec.value("scatter_ value", y)
    rec.graph("scatter_ graph", y)
    s = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    z = x * 1
    z.scatter_add_(1, idx, s)
    rec.value("scatter_add_", z)
    (z * z).sum().backward()
    rec.value("scatter_add_ x.grad", x.grad)
    rec.value("scatter_add_ s.grad", s.grad)
    rec.raises("scatter_ on a leaf", lambda: x.scatter_(1, idx, 0.0))
    # float32 sums in index order, as torch adds them
    rec.value("scatter_add float32 order", torch.tensor([1e8, 1.0]).scatter_add(
        0, torch.tensor([0, 0, 0, 1]), torch.tensor([1.0, 1.0, 3.0, 0.25])))
    rec.value("scatter int value into ints", torch.zeros(3, 4, dtype=torch.long).scatter(
        1, idx, 7))
    big = torch.ones(3, 4, requires_grad=True)
    rec.raises("scatter src larger than index, backward",
               lambda: x.detach().scatter(1, idx, big).sum().backward())
    # what backward needs is saved: changing it in place before backward is caught
    k = idx.clone()
    picked = x.gather(1, k)
    k.zero_()
    rec.raises("gather, index changed in place", lambda: picked.sum().backward())
    p = x * 1
    picked = p.gather(1, idx)
    p.mul_(2)
    rec.raises("gather, input changed in place", lambda: picked.sum().backward())
    k = idx.clone()
    written = x.scatter(1, k, 1.0)
    k.fill_(1)
    rec.raises("scatter, index changed in place", lambda: written.sum().backward())
    m = torch.tensor(_M)
    rec.raises("gather float index", lambda: m.gather(1, idx.float()))
    rec.raises("gather index out of range", lambda: m.gather(1, torch.tensor([[0, 5], [7, 0]])))
    rec.raises("gather negative index", lambda: m.gather(1, torch.tensor([[-1]])))
    rec.raises("gather index rank", lambda: m.gather(1, torch.tensor([1])))
    rec.raises("gather index too large", lambda: m.gather(1, torch.zeros(4, 1,
                                                                         dtype=torch.long)))
    rec.value("gather index wider along dim", m.gather(1, torch.zeros(2, 6, dtype=torch.long)))
    rec.value("gather 0-dim", torch.tensor(3.0).gather(0, torch.tensor(0)))
    rec.raises("scatter src dtype", lambda: m.scatter(1, idx, torch.ones(3, 2,
                                                                         dtype=torch.float64)))
    rec.raises("scatter src too small", lambda: m.scatter(1, idx, torch.ones(2, 2)))
    rec.raises("scatter index out of range", lambda: m.scatter(1, torch.tensor([[5]]), 1.0))
    rec.raises("scatter reduce unknown", lambda: m.scatter(1, idx, 2.0, reduce="sum"))
    rec.raises("scatter 0-dim tensor value", lambda: m.scatter(1, idx, torch.tensor(2.0)))
    rec.raises("scatter_add number", lambda: m.scatter_add(1, idx, 2.0))
    rec.raises("scatter_add float index", lambda: m.scatter_add(1, idx.float(), m))


def op_index_select_and_masked_select(torch, rec):
    _check(torch, rec, "index_select rows", lambda m: m.index_select(0, torch.tensor([2, 0, 2])),
           _M)
    _check(torch, rec, "index_select columns",
           lambda m: torch.index_select(m, 1, torch.tensor([3, 1])), _M)
    _check(torch, rec, "index_select 0-dim index",
           lambda m: m.index_select(1, torch.tensor(2)), _M)
    _check(torch, rec, "masked_select", lambda m: m.masked_select(m > 0.4), _M)
    _check(torch, rec, "masked_select broadcast mask",
           lambda m: torch.masked_select(m, torch.tensor([True, False, True, False])), _M)
    _check(torch, rec, "masked_select broadcast input",
           lambda v: v.masked_select(torch.tensor([[True], [False], [True]])), _V)
    x = torch.tensor(_M, requires_grad=True)
    k = torch.tensor([1, 2])
    rows = x.index_select(0, k)
    k.zero_()
    rec.raises("index_select, index changed in place", lambda: rows.sum().backward())
    mask = x.detach() > 1
    kept = x.masked_select(mask)
    mask[0, 0] = True
    rec.raises("masked_select, mask changed in place", lambda: kept.sum().backward())
    p = x * 1
    kept = p.masked_select(p > 1)
    p.mul_(2)
    rec.raises("masked_select, input changed in place", lambda: kept.sum().backward())
    m = torch.tensor(_M)
    rec.value("index_select of a number", torch.tensor(5.0).index_select(0, torch.tensor(0)))
    rec.raises("index_select 2-d index", lambda: m.index_select(0, torch.tensor(_IDX)))
    rec.raises("index_select float index", lambda: m.index_select(0, torch.tensor([0.0])))
    rec.raises("index_select out of range", lambda: m.index_select(0, torch.tensor([3])))
    rec.raises("index_select negative", lambda: m.index_select(0, torch.tensor([-1])))
    rec.raises("index_select list", lambda: m.index_select(1, [2]))
    rec.raises("masked_select float mask", lambda: m.masked_select(m))
    rec.raises("masked_select shapes", lambda: m.masked_select(torch.tensor([True, False])))


def op_nonzero_and_one_argument_where(torch, rec):
    m = torch.tensor(_M)
    rec.value("nonzero", torch.nonzero(m > 1))
    rec.value("nonzero as_tuple", torch.nonzero(m > 1, as_tuple=True))
    rec.value("nonzero method", torch.tensor([0, 3, 0, -1]).nonzero())
    rec.value("nonzero floats", torch.nonzero(torch.tensor([0.0, 1.5, -2.0, -0.0])))
    rec.value("nonzero 0-dim", torch.nonzero(torch.tensor(3.0)))
    rec.value("nonzero 0-dim as_tuple", torch.nonzero(torch.tensor(3.0), as_tuple=True))
    rec.value("nonzero 0-dim zero as_tuple", torch.nonzero(torch.tensor(0.0), as_tuple=True))
    rec.value("nonzero none", torch.zeros(2, 3).nonzero())
    rec.value("nonzero empty", torch.zeros(2, 0).nonzero())
    rec.value("where(condition)", torch.where(m < 0))
    rec.value("where 0-dim", torch.where(torch.tensor(True)))
    rec.value("where floats", torch.where(torch.tensor([0.0, 2.0])))
    rec.value("argwhere", torch.argwhere(m > 2))
    rec.value("rows picked by where", m[torch.where(m > 2)])
    rec.raises("where two arguments", lambda: torch.where(m > 0, m))


def op_split_and_chunk(torch, rec):
    x = torch.tensor(_M, requires_grad=True)
    for tag, parts in (("chunk 2", x.chunk(2)), ("chunk 2 dim 1", x.chunk(2, 1)),
                       ("chunk 1", x.chunk(1)), ("split 2", x.split(2)),
                       ("split sizes", x.split([1, 2])), ("split sizes dim 1",
                                                          torch.split(x, [1, 3], dim=1)),
                       ("split larger than dim", x.split(5))):
        rec.value(f"{tag} parts", parts)
        for i, p in enumerate(parts):
            rec.graph(f"{tag} part {i} graph", p)
    a, b = x.split([1, 2])
    _grads(torch, rec, "split one part used", b * 3, [x])
    c, d = x.chunk(2, 1)
    _grads(torch, rec, "chunk both parts", c * d, [x])
    rec.value("keywords", (x.split(split_size=2, dim=0), torch.split(x, split_size_or_sections=[3, 1],
                                                                     dim=1),
                           torch.chunk(x, chunks=2, dim=1)))
    rec.value("chunk 6 of 4", torch.tensor(_V).chunk(6))
    rec.value("chunk 5 of 6", torch.arange(6).chunk(5))
    rec.value("chunk of empty", torch.zeros(0).chunk(3))
    rec.value("split of empty", torch.zeros(0, 2).split(2))
    m = torch.tensor(_M)
    rec.raises("chunk 0", lambda: m.chunk(0))
    rec.raises("chunk of a number", lambda: torch.tensor(3.0).chunk(2))
    rec.raises("split 0", lambda: m.split(0))
    rec.raises("split negative", lambda: m.split(-1))
    rec.raises("split sizes sum", lambda: m.split([1, 1]))
    rec.raises("split sizes negative", lambda: m.split([4, -1]))
    rec.raises("split of a number", lambda: torch.tensor(3.0).split(1))
    # the pieces are views made by a function that returns several views: torch refuses to
    # change them in place when they require grad, and allows it when nothing does
    y = x * 1
    pieces = y.split(2)
    rec.raises("mul_ on a split piece", lambda: pieces[0].mul_(2))
    halves = y.chunk(2, 1)
    rec.raises("add_ on a chunk", lambda: halves[1].add_(1))
    plain = torch.tensor(_M)
    first, _ = plain.split(2)
    first.mul_(10)
    rec.value("mul_ on a piece without grad writes the base", plain)


def op_diag_diagonal_trace_outer(torch, rec):
    _check(torch, rec, "diag of a vector", lambda v: torch.diag(v), _V)
    _check(torch, rec, "diag of a vector, offset 1", lambda v: torch.diag(v, 1), _V)
    _check(torch, rec, "diag of a vector, offset -2", lambda v: v.diag(-2), _V)
    _check(torch, rec, "diag of a matrix", lambda m: torch.diag(m), _M)
    _check(torch, rec, "diag of a matrix, offset 1", lambda m: m.diag(1), _M)
    _check(torch, rec, "diag of a matrix, offset -1", lambda m: torch.diag(m, -1), _M)
    _check(torch, rec, "diagonal", lambda m: m.diagonal(), _M)
    _check(torch, rec, "diagonal offset", lambda m: torch.diagonal(m, 2), _M)
    _check(torch, rec, "diagonal of 3-d", lambda m: m.reshape(3, 2, 2).diagonal(0, -1, 0), _M)
    _check(torch, rec, "trace", lambda m: m.trace(), _SQ)
    _check(torch, rec, "trace of a wide matrix", lambda m: torch.trace(m), _M)
    _check(torch, rec, "outer", lambda u, v: torch.outer(u, v), [1.0, -2.0, 0.5], _V)
    _check(torch, rec, "ger", lambda u, v: u.ger(v), [1.0, -2.0, 0.5], _V)
    x = torch.tensor(_SQ, requires_grad=True)
    y = x * 1
    y.diagonal().mul_(10)
    rec.value("mul_ on a diagonal", y)
    rec.graph("mul_ on a diagonal graph", y)
    (y * y).sum().backward()
    rec.value("mul_ on a diagonal x.grad", x.grad)
    z = torch.zeros(3, 4)
    z.diagonal(1).add_(torch.tensor([1.0, 2.0, 3.0]))
    rec.value("add_ on an offset diagonal", z)
    rec.value("trace of ints", torch.arange(9).reshape(3, 3).trace())
    rec.value("trace float32", torch.tensor([[0.1, 0.2], [0.3, 0.7]]).trace())
    rec.value("diag far offset", torch.diag(torch.tensor(_M), 5))
    rec.value("outer of ints and floats", torch.outer(torch.tensor([1, 2]), torch.tensor(_V)))
    m = torch.tensor(_M)
    rec.raises("diag of 3-d", lambda: torch.diag(torch.zeros(2, 2, 2)))
    rec.raises("diag of a number", lambda: torch.diag(torch.tensor(3.0)))
    rec.raises("diagonal of a vector", lambda: torch.tensor(_V).diagonal())
    rec.raises("diagonal same dims", lambda: m.diagonal(0, 1, 1))
    rec.raises("trace of a vector", lambda: torch.tensor(_V).trace())
    rec.raises("outer of a matrix", lambda: torch.outer(m, torch.tensor(_V)))
    rec.raises("outer of a number", lambda: torch.outer(torch.tensor(_V), torch.tensor(3.0)))


def op_shape_ops_backward_twice(torch, rec):
    """A second backward raises where torch saved a tensor (an index, a mask, the input) and
    runs again where it saved none."""
    idx = torch.tensor(_IDX)
    for tag, fn in (("flip", lambda m: m.flip(0)), ("roll", lambda m: m.roll(1)),
                    ("repeat", lambda m: m.repeat(2, 1)), ("gather", lambda m: m.gather(1, idx)),
                    ("scatter value", lambda m: m.scatter(1, idx, 1.0)),
                    ("scatter_add of a constant", lambda m: m.scatter_add(
                        1, idx, torch.ones(3, 2))),
                    ("scatter_add into a constant", lambda m: torch.zeros(3, 4).scatter_add(
                        1, idx, m[:, :2])),
                    ("index_select", lambda m: m.index_select(0, torch.tensor([1]))),
                    ("masked_select", lambda m: m.masked_select(m > 1)),
                    ("split", lambda m: m.split(2)[0]), ("diag", lambda m: torch.diag(m)),
                    ("diagonal", lambda m: m.diagonal()), ("trace", lambda m: m.trace()),
                    ("einsum sum", lambda m: torch.einsum("ij->", m))):
        x = torch.tensor(_M, requires_grad=True)
        y = fn(x).sum()
        y.backward()
        rec.raises(f"{tag}: backward again", lambda y=y: y.backward())
        rec.value(f"{tag}: x.grad", x.grad)


_A3 = [[[1.0, 2.0, -1.0], [0.5, 0.0, 3.0]], [[-2.0, 1.0, 1.5], [4.0, -0.5, 2.0]]]
_B3 = [[[1.0, -1.0], [2.0, 0.5], [0.0, 3.0]], [[1.5, 2.0], [-1.0, 1.0], [0.5, -2.0]]]


def op_einsum(torch, rec):
    n = [[2.0, -1.0], [0.5, 3.0], [1.0, 1.0], [-2.0, 0.25]]
    _check(torch, rec, "ij,jk->ik", lambda a, b: torch.einsum("ij,jk->ik", a, b), _M, n)
    _check(torch, rec, "i,i->", lambda u, v: torch.einsum("i,i->", u, v), _V, [1.0, 2.0, 3.0,
                                                                               4.0])
    _check(torch, rec, "ij->ji", lambda a: torch.einsum("ij->ji", a), _M)
    _check(torch, rec, "bij,bjk->bik", lambda a, b: torch.einsum("bij,bjk->bik", a, b), _A3, _B3)
    _check(torch, rec, "ii->i", lambda a: torch.einsum("ii->i", a), _SQ)
    _check(torch, rec, "ii", lambda a: torch.einsum("ii", a), _SQ)
    _check(torch, rec, "ij->", lambda a: torch.einsum("ij->", a), _M)
    _check(torch, rec, "ij->j", lambda a: torch.einsum("ij->j", a), _M)
    _check(torch, rec, "i,j->ij", lambda u, v: torch.einsum("i,j->ij", u, v), _V, [1.0, -1.0])
    _check(torch, rec, "implicit ij,jk", lambda a, b: torch.einsum("ij,jk", a, b), _M, n)
    _check(torch, rec, "implicit i,j", lambda u, v: torch.einsum("i,j", u, v), _V, [2.0, 0.5])
    _check(torch, rec, "ij,j->i", lambda a, v: torch.einsum("ij,j->i", a, v), _M, _V)
    _check(torch, rec, "ij,ij->ij", lambda a, b: torch.einsum("ij,ij->ij", a, b), _M, _M)
    _check(torch, rec, "ij,kj->ik", lambda a, b: torch.einsum("ij,kj->ik", a, b), _M, _M)
    _check(torch, rec, "implicit bij,bjk", lambda a, b: torch.einsum("bij,bjk", a, b), _A3, _B3)
    _check(torch, rec, "ellipsis", lambda a, b: torch.einsum("...ij,...jk->...ik", a, b), _A3,
           _B3)
    _check(torch, rec, "three operands", lambda a, b, c: torch.einsum("ij,jk,kl->il", a, b, c),
           _M, n, [[1.0, 2.0], [3.0, -1.0]])
    _check(torch, rec, "operands in a list", lambda a, b: torch.einsum("ij,jk->ik", [a, b]), _M,
           n)
    _check(torch, rec, "capitals and spaces", lambda a, b: torch.einsum("A b , b C -> A C", a,
                                                                        b), _M, n)
    _check(torch, rec, "float64", lambda a, b: torch.einsum("ij,jk->ik", a, b), _M, n,
           dtype=torch.float64)
    rec.value("einsum of ints", torch.einsum("ij,jk->ik", torch.tensor([[1, 2], [3, 4]]),
                                             torch.tensor([[1, 0], [2, 1]])))
    rec.value("einsum trace of ints", torch.einsum("ii->", torch.tensor([[1, 2], [3, 4]])))
    rec.value("einsum float32 sums", torch.einsum("ij,jk->ik", torch.tensor([[0.1, 0.2, 0.3]]),
                                                  torch.tensor([[0.7], [0.9], [1.1]])))
    m = torch.tensor(_M)
    rec.raises("einsum too few operands", lambda: torch.einsum("ij,jk->ik", m))
    rec.raises("einsum too many operands", lambda: torch.einsum("ij", m, m))
    rec.raises("einsum no operand", lambda: torch.einsum("ij"))
    rec.raises("einsum unknown output", lambda: torch.einsum("ij->ik", m))
    rec.raises("einsum repeated output", lambda: torch.einsum("ij->ii", m))
    rec.raises("einsum wrong rank", lambda: torch.einsum("ijk->", m))
    rec.raises("einsum sizes", lambda: torch.einsum("ij,jk->ik", m, m))
    rec.raises("einsum bad subscript", lambda: torch.einsum("i1->", m))
    rec.raises("einsum diagonal sizes", lambda: torch.einsum("ii->i", m))
    rec.raises("einsum dtypes", lambda: torch.einsum("ij,jk->ik", m, m.t().double()))



SCENARIOS = collect_scenarios(globals(), __name__)
