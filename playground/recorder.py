"""The recorder: an engine observer that turns every event of a run into the parts of a timeline
(tensor and autograd nodes, edges, steps with their events, console, warnings). The format is
documented in docs/timeline.md and playground/timeline_schema.json (FORMAT_VERSION).

The recorder keeps no strong reference to the engine's tensors or nodes (only weak ones), so
recording changes neither what is freed nor the interpreter's live-element and node limits.
Values are serialised when an event happens (in full up to DISPLAY_ELEMENTS elements, else as
a summary); non-finite floats are encoded as the strings "nan", "inf" and "-inf".
Subclasses say what a step is: a program's statement (playground.session) or a line of plain
engine code (playground.trace).
"""

from __future__ import annotations

import traceback
import weakref

from ._engine import engine
from .limits import LimitExceeded

B = engine.backend
AccumulateGrad = engine.autograd.graph.AccumulateGrad
BackwardCFunction = engine.autograd.custom_function.BackwardCFunction
Module, Parameter = engine.nn.Module, engine.nn.Parameter
Observer = engine.observer.Observer
Tensor = engine.Tensor

__all__ = ["DISPLAY_ELEMENTS", "FORMAT_VERSION", "MAX_SERIES_POINTS", "SUMMARY_FIRST", "Recorder",
           "encode_value", "safe"]

FORMAT_VERSION = 4
MAX_SERIES_POINTS = 200_000  # values in all long loops' series together (more are dropped)
DISPLAY_ELEMENTS = 64  # tensors up to this many elements are sent in full
SUMMARY_FIRST = 8  # a summary shows this many leading elements (row-major)
# A run's recording is finished and sent as JSON after the run, within the same time limit: every
# RESERVE_EVERY events the run's deadline moves this much earlier per event, the time finishing and
# encoding one event takes (5-10 us on an idle server core, several times that on a busy one or
# in the browser; an event is ~150 bytes of JSON, most of it numbers).
RESERVE_EVERY = 1024
RESERVE_SECONDS_PER_EVENT = 30e-6
_INF = float("inf")


# == values =======================================================================================

def _num(v):
    if type(v) is float and (v != v or v == _INF or v == -_INF):
        return "nan" if v != v else ("inf" if v > 0 else "-inf")
    return v


def _clean(v):
    """tolist() output with non-finite floats as strings (JSON has no NaN)."""
    if type(v) is list:
        return [_clean(x) for x in v]
    return _num(v)


def encode_value(t):
    """A tensor's value as JSON: {shape, dtype, data} up to DISPLAY_ELEMENTS elements, else
    {shape, dtype, summary: {numel, min, max, mean, first}}."""
    if t is None:
        return None
    a = t._data
    shape = list(B.shape(a))
    n = B.numel(a)
    out = {"shape": shape, "dtype": t._dtype.name}
    if n <= DISPLAY_ELEMENTS:
        out["data"] = _clean(B.tolist(a))
        return out
    flat = B.reshape(a, (-1,))
    first = _clean(B.tolist(B.getitem(flat, slice(0, SUMMARY_FIRST))))
    f = B.astype(flat, "float64")
    out["summary"] = {
        "numel": n,
        "min": _num(float(B.item(B.amin(f, None, False)))),
        "max": _num(float(B.item(B.amax(f, None, False)))),
        "mean": _num(float(B.item(B.mean(f, None, False)))),
        "first": first,
    }
    return out


# == the recorder =================================================================================

def _hooks_on(t, fn) -> int:
    """How many `register_hook` hooks wait on tensor t (a leaf keeps them, a non-leaf's live on
    its grad_fn with the tensor they belong to), so the UI can mark one before it runs."""
    if fn is None:
        return len(t._hooks) if t._hooks else 0
    pending = fn._tensor_pre_hooks
    return sum(1 for entry in pending if entry[1] is t) if pending else 0


class _TRec:
    """What the timeline knows about one tensor (holding it weakly)."""

    __slots__ = ("id", "ref", "names", "op", "kind", "step", "line", "col", "node", "hidden",
                 "used", "inputs", "data_id", "value", "grad", "version", "requires_grad",
                 "is_leaf", "retains_grad", "grad_fn", "grad_fn_id", "grad_of", "sig", "shape",
                 "dtype")

    def __init__(self, tid, tensor, op, kind, step, line, col):
        self.id = tid
        self.ref = weakref.ref(tensor)
        self.names = []
        self.op = op
        self.kind = kind
        self.step = step
        self.line = line
        self.col = col
        self.node = None
        self.hidden = False
        self.used = False
        self.inputs = ()
        self.data_id = id(tensor._data)
        self.value = None
        self.grad = None
        self.version = tensor._vc[0]
        self.requires_grad = tensor._requires_grad
        self.is_leaf = tensor._grad_fn is None
        self.retains_grad = tensor._retains_grad
        self.grad_fn = None
        self.grad_fn_id = None
        self.grad_of = None
        self.sig = None
        self.shape = list(B.shape(tensor._data))
        self.dtype = tensor._dtype.name


class _NRec:
    __slots__ = ("id", "ref", "name", "tensor", "version", "variable", "step", "line", "next",
                 "rule")

    def __init__(self, nid, node, step, line):
        self.id = nid
        self.ref = weakref.ref(node)
        self.name = node.name()
        # a node whose chain rule is not in the engine's table (a program's own Function)
        # carries it here
        self.rule = type(node).chain_rule if isinstance(node, BackwardCFunction) else None
        self.tensor = None
        self.version = None
        self.variable = None
        self.step = step
        self.line = line
        self.next = []


def safe(fn):
    """Observer methods never let a recorder bug break the user's program: the error is kept
    in the timeline's `internal_errors` instead."""
    name = fn.__name__

    def wrapper(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except LimitExceeded:  # the timeline's own budget (Recorder.emit): the run stops
            raise
        except Exception:
            self.internal_errors.append(f"{name}: " + traceback.format_exc(limit=4)[-600:])

    wrapper.__name__ = name
    wrapper.__doc__ = fn.__doc__
    return wrapper


def _module_parameters(module, limit: int = 10_000) -> list:
    """(name, parameter) of a module and its submodules, as named_parameters() names them by
    default, read off the engine's own tables: a program's Module subclass may override
    named_parameters or named_modules, and naming a bound module must run none of its code
    (torch runs none when a name is bound)."""
    out, seen_modules, seen_params = [], set(), set()
    stack = [("", module)]
    while stack and len(out) < limit:
        prefix, m = stack.pop()
        if id(m) in seen_modules:
            continue
        seen_modules.add(id(m))
        for k, p in vars(m).get("_parameters", {}).items():
            if p is not None and id(p) not in seen_params:
                seen_params.add(id(p))
                out.append((prefix + k, p))
        subs = [(prefix + k + ".", sub) for k, sub in vars(m).get("_modules", {}).items()
                if sub is not None]
        stack.extend(reversed(subs))  # depth first, in registration order, as torch walks
    return out


def _scalar(value):
    """The number in a Python int/float or a one-element tensor (JSON-safe), else None."""
    t = type(value)
    if t is float:
        return _num(value)
    if t is int:
        return value
    if isinstance(value, Tensor):
        a = value._data
        if B.numel(a) == 1:
            return _num(B.item(B.reshape(a, ())))
    return None


class _LoopRec:
    """A loop under way, as the timeline's `loops` lists it."""

    __slots__ = ("stmt_id", "loop", "n", "detail", "skipped", "series", "backward")

    def __init__(self, stmt_id: int, loop: tuple):
        self.stmt_id = stmt_id
        self.loop = loop
        self.n = 0
        self.detail: list = []
        self.skipped = False
        self.series: dict = {}  # name -> {iteration: value}
        self.backward: dict = {}  # iteration -> the value of its last backward()'s root

    def to_dict(self, iterations: int) -> dict:
        def column(values):
            return [values.get(i) for i in range(iterations)]

        return {"statement": self.stmt_id, "loop": list(self.loop), "iterations": iterations,
                "detail": [n for n in self.detail if n < iterations],
                "series": {name: column(v) for name, v in self.series.items()},
                "backward": column(self.backward)}


class _Light(Observer):
    """What hears the engine while an iteration keeps no detail: nothing but each backward()'s
    root, for the loss series (every other event is the base class's no-op)."""

    def __init__(self, recorder):
        self.recorder = recorder

    def backward_begin(self, roots, grad_roots, inputs, retain_graph, create_graph, api):
        try:
            self.recorder.note_backward(roots, api)
        except Exception:
            self.recorder.internal_errors.append("backward series: "
                                                 + traceback.format_exc(limit=3)[-600:])


class Recorder(Observer):
    """Records every engine event into steps; see docs/timeline.md for what it produces."""

    def __init__(self, max_warnings: int = 1000, max_events: int | None = None):
        self.tensors: dict = {}  # id(tensor) -> _TRec (checked against the weak ref)
        self.trecs: list = []
        self.nodes: dict = {}  # id(node) -> _NRec
        self.nrecs: list = []
        self.by_nid: dict = {}  # node id -> _NRec
        self.tensor_edges: list = []
        self.node_edges: list = []
        self.steps: list = []
        self.console: list = []
        self.warnings: list = []
        self.internal_errors: list = []
        self.grad_owner: dict = {}  # id(grad tensor) -> (weakref(grad), owner _TRec)
        self.vc_groups: dict = {}  # id(version counter) -> [_TRec] sharing it
        self.bound: dict = {}  # program name -> [_TRec]
        self.counters: dict = {}  # id context -> [tensors made, nodes made]
        self.max_warnings = max_warnings
        self.warning_count = 0
        self.event_count = 0
        self.step = None  # the step being recorded (a dict)
        self.ctx = ""  # id context of the current step
        self.step_new: list = []  # _TRecs made during the current step
        self.dirty: dict = {}  # _TRec -> True: changed by an event of the current step
        self.edges_mark = 0
        # the timeline's budget: more events than this stop the run with a `limit` error
        self.max_events = max_events
        # long loops (docs/timeline.md): the loops under way that the interpreter reports, the
        # finished ones that kept some iterations without detail, and the observer that hears
        # the engine during those iterations
        self.loop_stack: list = []
        self.loops: list = []
        self.series_points = 0
        self.program_light = _Light(self)
        self.rescan = False  # iterations without detail ran in this step: scan every tensor
        # tensors with hooks waiting: looked at every step, since `handle.remove()` names only the handle
        self.hooked = {}  # a dict, not a set: the state's order stays the same from run to run
        self.scopes: list = []  # calls of the program's functions and modules (call_begin)
        self.open_scopes: list = []  # the scopes under way, innermost last

    # -- ids ---------------------------------------------------------------------------------
    def new_id(self, kind: str) -> str:
        c = self.counters.get(self.ctx)
        if c is None:
            c = self.counters[self.ctx] = [0, 0]
        i = 0 if kind == "t" else 1
        k = c[i]
        c[i] = k + 1
        if self.ctx:
            return f"{kind}:{self.ctx}:{k}"
        return f"{kind}{k + 1}"

    # -- steps -------------------------------------------------------------------------------
    def begin_step(self, step: dict, ctx: str) -> None:
        self.step = step
        self.ctx = ctx
        self.step_new = []
        self.dirty = {}
        self.edges_mark = len(self.tensor_edges)
        self.steps.append(step)

    def emit(self, event: dict) -> None:
        self.step["events"].append(event)
        self.count_record()

    def count_record(self) -> None:
        """One more record in the timeline (an event, or a call scope): counted against the
        timeline's budget, and the time it will take to send reserved from the run's."""
        self.event_count += 1
        if not self.event_count % RESERVE_EVERY:
            budget = engine.budget.current()
            if budget is not None and hasattr(budget, "reserve"):
                budget.reserve(RESERVE_EVERY * RESERVE_SECONDS_PER_EVENT)
        if self.max_events is not None and self.event_count > self.max_events:
            self.max_events = None  # once: the error's own events still go in
            raise LimitExceeded("max_timeline_events", f"the timeline grew too large: more than "
                                f"{self.event_count - 1:,} events (the limit is "
                                f"{self.event_count - 1:,}); a long loop keeps only some of "
                                f"its iterations in detail, so this program records a lot "
                                f"outside loops or in each kept iteration")

    def end_step(self, names_used=()) -> None:
        step = self.step
        if step is None:
            return
        self._visibility()
        candidates = dict(self.dirty)
        for rec in self.step_new:
            if not rec.hidden:
                candidates[rec] = True
        for name in names_used:
            for rec in self.bound.get(name, ()):
                candidates.setdefault(rec, False)
        for rec in list(self.hooked):
            candidates.setdefault(rec, False)
        if self.rescan:  # events of quiet iterations went unheard: compare every tensor
            self.rescan = False
            for rec in self.trecs:
                candidates.setdefault(rec, False)
        state = step["state"]
        for rec, forced in candidates.items():
            if rec.hidden:
                continue
            entry = self._state(rec, forced or rec.sig is None)
            if entry is not None:
                state[rec.id] = entry
        self.step = None

    def _visibility(self) -> None:
        """Tensors made in this step that the user cannot see (an optimizer's buffers, a
        layer's scratch tensors, temporaries under no_grad) are dropped with their events."""
        new = self.step_new
        if not new:
            return
        mine = {id(r): r for r in new}
        for rec in reversed(new):
            if rec.names or rec.requires_grad or rec.node is not None or rec.used:
                for inp in rec.inputs:
                    if id(inp) in mine:
                        inp.used = True
                    elif inp.hidden:  # made earlier, unseen until a visible tensor used it
                        inp.hidden = False
            else:
                rec.hidden = True
        hidden = {r.id for r in new if r.hidden}
        if not hidden:
            return
        events = self.step["events"]
        events[:] = [e for e in events if not (e.get("tensor") in hidden and e["event"] in (
            "tensor_created", "inplace"))]
        edges = self.tensor_edges
        tail = [e for e in edges[self.edges_mark:]
                if e["from"] not in hidden and e["to"] not in hidden]
        del edges[self.edges_mark:]
        edges.extend(tail)

    def _state(self, rec: _TRec, forced: bool):
        t = rec.ref()
        if t is None:
            if rec.sig is not None:
                return None
            rec.sig = ()  # made and freed within one step: its state as it was made
            return {"version": rec.version, "grad": rec.grad, "requires_grad": rec.requires_grad,
                    "is_leaf": rec.is_leaf, "retains_grad": rec.retains_grad,
                    "grad_fn": rec.node, "hooks": 0}
        g = t._grad
        fn = t._grad_fn
        hooks = _hooks_on(t, fn)
        sig = (id(g) if g is not None else None, g._vc[0] if g is not None else -1, t._vc[0],
               t._requires_grad, t._retains_grad, id(fn) if fn is not None else None, hooks,
               id(t._data))
        if not forced and sig == rec.sig:
            return None
        gval = encode_value(g) if g is not None else None
        if g is not None:
            self.grad_owner[id(g)] = (weakref.ref(g), rec)
        entry = {"version": t._vc[0], "grad": gval, "requires_grad": t._requires_grad,
                 "is_leaf": fn is None, "retains_grad": t._retains_grad,
                 "grad_fn": self.nid(fn, rec) if fn is not None else None, "hooks": hooks}
        if hooks:
            self.hooked[rec] = True
        else:
            self.hooked.pop(rec, None)
        if rec.sig is not None and sig[-1] != rec.sig[-1]:
            rec.value = entry["value"] = encode_value(t)  # `.data = ...` replaced the values
        rec.sig = sig
        rec.grad = gval
        rec.grad_fn = fn.name() if fn is not None else None
        rec.grad_fn_id = entry["grad_fn"]
        rec.version = t._vc[0]
        rec.requires_grad = t._requires_grad
        rec.is_leaf = fn is None
        rec.retains_grad = t._retains_grad
        return entry

    # -- registering tensors and nodes ---------------------------------------------------------
    def lookup(self, t):
        rec = self.tensors.get(id(t))
        if rec is not None and rec.ref() is t:
            return rec
        return None

    def tid(self, t, reveal: bool = True) -> _TRec:
        """The record of t, made now (as seen in this step) if the recorder has not met it."""
        rec = self.lookup(t)
        if rec is not None:
            if reveal and rec.hidden:
                rec.hidden = False
            return rec
        if isinstance(t, Parameter):
            rec = self._adopt(t)
            if rec is not None:
                return rec
        rec = self._register(t, "seen", "tensor")
        owner = self.grad_owner.get(id(t))
        if owner is not None and owner[0]() is t:
            rec.grad_of = owner[1].id
            rec.kind = "grad"
        if isinstance(t, Parameter):
            rec.kind = "parameter"
        rec.value = encode_value(t)
        return rec

    def _register(self, t, op, kind) -> _TRec:
        step = self.step
        rec = _TRec(self.new_id("t"), t, op, kind, step["index"] if step else None,
                    step["line"] if step else None, step["col"] if step else None)
        self.tensors[id(t)] = rec
        self.trecs.append(rec)
        self.step_new.append(rec)
        self.vc_groups.setdefault(id(t._vc), []).append(rec)
        return rec

    def _adopt(self, p):
        """A Parameter wraps the memory of a tensor made in this step (nn.Linear's `empty`,
        `nn.Parameter(torch.randn(3))`): the parameter takes over that tensor's record, so its
        creation and initialisation events are the parameter's."""
        did = id(p._data)
        for rec in reversed(self.step_new):
            if rec.data_id == did and not rec.names and rec.kind == "tensor":
                old = rec.ref()
                if old is not None and self.tensors.get(id(old)) is rec:
                    del self.tensors[id(old)]
                rec.ref = weakref.ref(p)
                rec.kind = "parameter"
                rec.requires_grad = p._requires_grad
                rec.hidden = False
                self.tensors[id(p)] = rec
                self.vc_groups.setdefault(id(p._vc), []).append(rec)
                return rec
        return None

    def nid(self, node, trec=None):
        """The id of a graph node, registering it (and, iteratively, the nodes it leads to)."""
        if node is None:
            return None
        r = self.nodes.get(id(node))
        if r is not None and r.ref() is node:
            if trec is not None and r.tensor is None:
                t = trec.ref()
                r.tensor = trec.id
                r.version = t._vc[0] if t is not None else None
            return r.id
        first = self._new_node(node, trec)
        pending = [(node, first)]
        while pending:
            n, rec = pending.pop()
            nexts = []
            for i, (nxt, nr) in enumerate(n.next_functions):
                if nxt is None:
                    nexts.append([None, nr])
                    continue
                r2 = self.nodes.get(id(nxt))
                if r2 is None or r2.ref() is not nxt:
                    r2 = self._new_node(nxt, None)
                    pending.append((nxt, r2))
                nexts.append([r2.id, nr])
                self.node_edges.append({"from": rec.id, "to": r2.id, "input_nr": nr,
                                        "index": i})
            rec.next = nexts
        return first.id

    def _new_node(self, node, trec) -> _NRec:
        step = self.step
        if type(node) is AccumulateGrad:
            var = self.tid(node.variable)
            nid = "a" + var.id[1:]
        else:
            var = None
            nid = self.new_id("n")
        r = _NRec(nid, node, step["index"] if step else None, step["line"] if step else None)
        if var is not None:
            r.variable = var.id
            r.tensor = var.id
            r.version = None
        elif trec is not None:
            r.tensor = trec.id
            t = trec.ref()
            r.version = t._vc[0] if t is not None else None
        self.nodes[id(node)] = r
        self.nrecs.append(r)
        self.by_nid[nid] = r
        if self.open_scopes and type(node) is not AccumulateGrad:
            self.open_scopes[-1]["nodes"].append(nid)
        return r

    # -- call scopes -----------------------------------------------------------------------------
    @safe
    def call_begin(self, kind: str, name: str, args, line, col) -> None:
        """The program called one of its functions (kind "function") or a module ("module"):
        what is made until call_end belongs to this scope. args: [(name, value)]."""
        parent = self.open_scopes[-1]["id"] if self.open_scopes else None
        scope = {"id": f"c{len(self.scopes) + 1}", "kind": kind, "name": name,
                 "parent": parent, "step": self.step["index"] if self.step else None,
                 "line": line, "col": col, "args": [self._scope_arg(n, v) for n, v in args],
                 "tensors": [], "nodes": [], "returned": [], "ok": None}
        self.scopes.append(scope)
        self.open_scopes.append(scope)
        self.count_record()  # a scope costs the timeline as much as an event or two

    @safe
    def call_end(self, value, ok: bool) -> None:
        if not self.open_scopes:
            return
        scope = self.open_scopes.pop()
        scope["ok"] = ok
        values = value if type(value) in (tuple, list) else (value,)
        for v in values[:16]:
            rec = self.lookup(v) if isinstance(v, Tensor) else None
            if rec is not None:
                scope["returned"].append(rec.id)

    def _scope_arg(self, name: str, value) -> dict:
        # a scope names the tensors the recorder already knows; it makes no record of its own
        # (that would show tensors the timeline otherwise hides, and cost on every call)
        if isinstance(value, Tensor):
            rec = self.lookup(value)
            return {"name": name, "tensor": rec.id if rec is not None else None, "value": None}
        if value is None or type(value) in (bool, int, float, str):
            text = repr(value)
        else:
            text = f"<{type(value).__name__}>"
        return {"name": name, "tensor": None, "value": text[:40]}

    def mark(self, t) -> None:
        """t changed in this step: it and every tensor sharing its memory get a state entry."""
        group = self.vc_groups.get(id(t._vc), ())
        vc = t._vc
        for rec in group:
            o = rec.ref()
            if o is not None and o._vc is vc:
                self.dirty[rec] = True

    def owner_of_grad(self, t):
        entry = self.grad_owner.get(id(t))
        if entry is None or entry[0]() is not t:
            return None
        owner = entry[1].ref()
        if owner is None or owner._grad is not t:
            return None
        return entry[1]

    def note_grad(self, rec: _TRec, g) -> None:
        if g is not None:
            self.grad_owner[id(g)] = (weakref.ref(g), rec)

    # -- engine events ---------------------------------------------------------------------------
    def at(self) -> None:
        """Hook for subclasses (trace) that decide the step from the caller's line."""

    @safe
    def tensor_created(self, tensor, node, op, inputs):
        self.at()
        ins = []
        for t in inputs:
            if not t._wrapped:
                r = self.tid(t, reveal=node is not None)
                if node is not None:
                    r.used = True
                ins.append(r)
        rec = self._register(tensor, op, "tensor")
        if self.open_scopes:
            self.open_scopes[-1]["tensors"].append(rec.id)
        rec.inputs = tuple(ins)
        rec.value = encode_value(tensor)
        nid = None
        if node is not None:
            nid = self.nid(node, rec)
            rec.node = rec.grad_fn_id = nid
            rec.grad_fn = node.name()
        step = self.step["index"]
        for i, r in enumerate(ins):
            self.tensor_edges.append({"from": r.id, "to": rec.id, "op": op, "index": i,
                                      "recorded": node is not None, "inplace": False,
                                      "step": step})
        self.emit({"event": "tensor_created", "tensor": rec.id, "op": op,
                   "inputs": [r.id for r in ins], "node": nid,
                   "requires_grad": tensor._requires_grad, "value": rec.value})

    @safe
    def inplace(self, tensor, op, version):
        self.at()
        owner = self.owner_of_grad(tensor)
        if owner is not None:
            named = self.lookup(tensor)
            ev = {"event": "grad_zeroed" if op == "zero_" else "grad_inplace",
                  "tensor": owner.id, "op": op, "version": version,
                  "grad": encode_value(tensor)}
            if named is not None and not named.hidden:
                ev["grad_tensor"] = named.id
                self.mark(tensor)
            self.dirty[owner] = True
            self.emit(ev)
            return
        rec = self.lookup(tensor)
        if rec is not None and rec.hidden:
            return  # a tensor the user cannot see (an optimizer's buffer)
        if rec is None:
            rec = self.tid(tensor)
        fn = tensor._grad_fn
        ev = {"event": "inplace", "tensor": rec.id, "op": op, "version": version,
              "grad_fn": fn.name() if fn is not None else None, "node": None}
        base = tensor._base
        if base is not None and base._grad_fn is not None and fn is not None:
            brec = self.tid(base)
            bfn = base._grad_fn
            ev["base"] = {"tensor": brec.id, "grad_fn": bfn.name(), "node": self.nid(bfn, brec)}
        if fn is not None:
            known = self.nodes.get(id(fn))
            fresh = known is None or known.ref() is not fn
            nid = ev["node"] = self.nid(fn, rec)
            if fresh:
                nrec = self.nodes[id(fn)]
                nrec.tensor, nrec.version = rec.id, version
                step = self.step["index"]
                for i, (to, _) in enumerate(nrec.next):
                    src = self._node_tensor(to)
                    if src is not None:
                        self.tensor_edges.append({"from": src, "to": rec.id, "op": op,
                                                  "index": i, "recorded": True,
                                                  "inplace": True, "step": step})
            rec.node = nid
        rec.grad_fn, rec.grad_fn_id = ev["grad_fn"], ev["node"]
        rec.is_leaf = fn is None
        rec.requires_grad = tensor._requires_grad
        rec.version = version
        rec.value = ev["value"] = encode_value(tensor)
        self.mark(tensor)
        self.emit(ev)

    def _node_tensor(self, nid):
        r = self.by_nid.get(nid) if nid is not None else None
        return r.tensor if r is not None else None

    def _grad_changed(self, tensor, after) -> _TRec:
        """The record of a tensor whose .grad just became `after`, marked for the step's state."""
        self.at()
        rec = self.tid(tensor)
        rec.used = True
        self.note_grad(rec, after)
        self.dirty[rec] = True
        return rec

    @safe
    def grad_assigned(self, tensor, before, after):
        rec = self._grad_changed(tensor, after)
        self.emit({"event": "grad_assigned", "tensor": rec.id, "before": encode_value(before),
                   "after": encode_value(after)})

    @safe
    def warning(self, message, category):
        self.at()
        self.warning_count += 1
        if self.warning_count > self.max_warnings:
            return
        self.emit({"event": "warning", "category": getattr(category, "__name__", str(category)),
                   "message": str(message)})

    @safe
    def backward_begin(self, roots, grad_roots, inputs, retain_graph, create_graph, api):
        self.at()
        self.note_backward(roots, api)
        ids = []
        for r in roots:
            rec = self.tid(r)
            rec.used = True
            if r._grad_fn is not None:
                self.nid(r._grad_fn, rec)
            ids.append(rec.id)
        grads = [encode_value(g) for g in grad_roots]
        ins = None
        if inputs is not None:
            ins = [self.tid(t).id for t in inputs]
        self.emit({"event": "backward_begin", "api": api, "root": ids[0] if ids else None,
                   "gradient": grads[0] if grads else None, "roots": ids, "gradients": grads,
                   "inputs": ins, "retain_graph": bool(retain_graph),
                   "create_graph": bool(create_graph)})

    @safe
    def hook(self, tensor, grad_in, grad_out):
        self.at()
        rec = self.tid(tensor)
        self.emit({"event": "hook", "tensor": rec.id, "grad_in": encode_value(grad_in),
                   "grad_out": encode_value(grad_out)})

    @safe
    def node_begin(self, node, grad_outputs):
        self.at()
        self.emit({"event": "node_begin", "node": self.nid(node), "name": node.name(),
                   "gradient": encode_value(grad_outputs)})

    @safe
    def edge(self, node, next_node, input_nr, grad):
        self.at()
        self.emit({"event": "edge", "from": self.nid(node), "to": self.nid(next_node),
                   "input_nr": input_nr, "gradient": encode_value(grad)})

    @safe
    def node_end(self, node):
        self.at()
        self.emit({"event": "node_end", "node": self.nid(node)})

    @safe
    def accumulate(self, tensor, before, delta, after):
        rec = self._grad_changed(tensor, after)
        self.emit({"event": "accumulate", "tensor": rec.id, "before": encode_value(before),
                   "delta": encode_value(delta), "after": encode_value(after)})

    @safe
    def backward_end(self, error):
        self.at()
        err = None if error is None else {"type": type(error).__name__, "message": str(error)}
        self.emit({"event": "backward_end", "error": err})

    # -- output --------------------------------------------------------------------------------
    def output(self, text: str) -> None:
        self.at()
        events = self.step["events"]
        if events and events[-1]["event"] == "print" and not events[-1]["text"].endswith("\n"):
            events[-1]["text"] += text  # one print() written in pieces (sys.stdout in trace)
            self.console[-1]["text"] += text
            return
        self.emit({"event": "print", "text": text})
        self.console.append({"step": self.step["index"], "line": self.step["line"],
                             "text": text})

    def name(self, name: str, value) -> None:
        """A program name (or a trace's local) now refers to value."""
        recs = []
        if isinstance(value, Tensor):
            recs.append((name, self.tid(value)))
        elif isinstance(value, Module):
            for pname, p in _module_parameters(value):
                recs.append((f"{name}.{pname}", self.tid(p)))
        elif type(value) in (list, tuple) and len(value) <= 1000:
            for i, v in enumerate(value):
                if isinstance(v, Tensor):
                    recs.append((f"{name}[{i}]", self.tid(v)))
        for full, rec in recs:
            if full in rec.names:
                rec.names.remove(full)
            rec.names.append(full)
        self.bound[name] = [rec for _, rec in recs]

    # -- long loops (docs/timeline.md, "Long loops") ------------------------------------------
    def program_loop(self, stmt_id: int, loop: tuple, length) -> None:
        """A loop (header statement stmt_id) starts in iteration path `loop` (enclosing
        iterations); length: its number of iterations, None when not known yet."""
        self.loop_stack.append(_LoopRec(stmt_id, loop))

    def program_iteration(self, n: int, detail: bool) -> None:
        """Iteration n of the innermost loop starts; detail: whether its events are heard."""
        lr = self.loop_stack[-1]
        lr.n = n
        if detail:
            lr.detail.append(n)
        else:
            lr.skipped = True
            self.rescan = True

    def program_loop_end(self, iterations: int) -> None:
        lr = self.loop_stack.pop()
        if lr.skipped:
            self.loops.append(lr.to_dict(iterations))

    def program_value(self, name: str, value) -> None:
        """A name bound in the scope of the innermost loop: a scalar goes into its series."""
        stack = self.loop_stack
        if not stack or type(name) is not str:
            return
        v = _scalar(value)
        if v is None:
            return
        for lr in stack:
            series = lr.series.get(name)
            if series is None:
                if self.series_points >= MAX_SERIES_POINTS:
                    continue
                series = lr.series[name] = {}
            if lr.n not in series:
                if self.series_points >= MAX_SERIES_POINTS:
                    continue
                self.series_points += 1
            series[lr.n] = v

    def note_backward(self, roots, api) -> None:
        """backward() from one scalar root: its value goes into the innermost loop's series."""
        stack = self.loop_stack
        if not stack or api != "backward" or len(roots) != 1:
            return
        v = _scalar(roots[0])
        if v is None:
            return
        lr = stack[-1]
        if lr.n not in lr.backward:
            if self.series_points >= MAX_SERIES_POINTS:
                return
            self.series_points += 1
        lr.backward[lr.n] = v

    # -- the timeline --------------------------------------------------------------------------
    def finish(self) -> dict:
        tensors = []
        for rec in self.trecs:
            if rec.hidden:
                continue
            t = rec.ref()
            if t is not None:
                self._state(rec, True)
                rec.value = encode_value(t)
                fn = t._grad_fn
                rec.grad_fn = fn.name() if fn is not None else None
                rec.grad_fn_id = self.nid(fn, rec) if fn is not None else None
                rec.shape = list(B.shape(t._data))
                rec.dtype = t._dtype.name
            tensors.append({
                "id": rec.id, "name": rec.names[-1] if rec.names else None,
                "names": list(rec.names), "kind": rec.kind, "op": rec.op,
                "shape": rec.shape, "dtype": rec.dtype, "value": rec.value,
                "requires_grad": rec.requires_grad, "is_leaf": rec.is_leaf,
                "retains_grad": rec.retains_grad, "version": rec.version,
                "grad_fn": rec.grad_fn, "node": rec.grad_fn_id, "grad": rec.grad,
                "grad_of": rec.grad_of, "alive": t is not None,
                "step": rec.step, "line": rec.line, "col": rec.col,
            })
        nodes = [{"id": r.id, "name": r.name, "tensor": r.tensor, "version": r.version,
                  "variable": r.variable, "next": r.next, "step": r.step, "line": r.line,
                  "rule": r.rule}
                 for r in self.nrecs]
        visible = {t["id"] for t in tensors}
        for n in nodes:  # nodes of hidden tensors keep their place but name no tensor
            if n["tensor"] is not None and n["tensor"] not in visible:
                n["tensor"] = None
        edges = [e for e in self.tensor_edges if e["from"] in visible and e["to"] in visible]
        for scope in self.scopes:  # a scope lists only the tensors the timeline shows
            scope["tensors"] = [t for t in scope["tensors"] if t in visible]
            scope["returned"] = [t for t in scope["returned"] if t in visible]
            for arg in scope["args"]:
                if arg["tensor"] is not None and arg["tensor"] not in visible:
                    arg["tensor"] = None
        return {"nodes": {"tensors": tensors, "autograd": nodes},
                "edges": {"tensors": edges, "autograd": self.node_edges},
                "scopes": self.scopes}


