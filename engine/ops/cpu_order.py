"""Which of several equal elements torch's CPU kernels pick: their selection algorithms, step
for step, on Python lists.

topk, kthvalue and mode return an index, and their gradient goes to that index, so among equal
values the engine must pick the one torch picks. torch's kernels do not sort stably there: topk
runs the C++ library's `nth_element`/`partial_sort` and `sort`, mode its `sort`, kthvalue
torch's own quickselect. This module replays libstdc++'s introselect, introsort and heap
algorithms (the C++ library torch's Linux wheels are built with) and torch's quickselect on a
list, with the same comparison function, so the same element lands in the same place. (sort
and median need none of this: torch's sort is stable, and median compares indices on ties.)
"""

from __future__ import annotations

_THRESHOLD = 16  # libstdc++'s _S_threshold: below it, insertion sort finishes the job


def _lg(n: int) -> int:
    return n.bit_length() - 1


# -- heaps ---------------------------------------------------------------------------------------

def _push_heap(a, first, hole, top, value, less):
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _adjust_heap(a, first, hole, length, value, less):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    _push_heap(a, first, hole, top, value, less)


def _make_heap(a, first, last, less):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, first, parent, length, a[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a, first, last, result, less):
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value, less)


def _heap_select(a, first, middle, last, less):
    _make_heap(a, first, middle, less)
    for i in range(middle, last):
        if less(a[i], a[first]):
            _pop_heap(a, first, middle, i, less)


def partial_sort(a, first, middle, last, less) -> None:
    """std::partial_sort: the smallest middle - first elements, in order, at the front."""
    _heap_select(a, first, middle, last, less)
    while middle - first > 1:
        middle -= 1
        _pop_heap(a, first, middle, middle, less)


# -- partitioning and insertion sort -------------------------------------------------------------

def _move_median_to_first(a, result, x, y, z, less):
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            m = y
        elif less(a[x], a[z]):
            m = z
        else:
            m = x
    elif less(a[x], a[z]):
        m = x
    elif less(a[y], a[z]):
        m = z
    else:
        m = y
    a[result], a[m] = a[m], a[result]


def _unguarded_partition(a, first, last, pivot, less):
    while True:
        while less(a[first], a[pivot]):
            first += 1
        last -= 1
        while less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _partition_pivot(a, first, last, less):
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(a, first + 1, last, first, less)


def _linear_insert(a, last, less):
    value = a[last]
    prev = last - 1
    while less(value, a[prev]):
        a[last] = a[prev]
        last = prev
        prev -= 1
    a[last] = value


def _insertion_sort(a, first, last, less):
    if first == last:
        return
    for i in range(first + 1, last):
        value = a[i]
        if less(value, a[first]):
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
        else:
            _linear_insert(a, i, less)


# -- the algorithms torch calls ------------------------------------------------------------------

def sort(a, first, last, less) -> None:
    """std::sort (introsort, then a final insertion sort); not stable."""
    if last - first < 2:
        return
    _introsort_loop(a, first, last, 2 * _lg(last - first), less)
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


def _introsort_loop(a, first, last, depth, less):
    while last - first > _THRESHOLD:
        if depth == 0:
            partial_sort(a, first, last, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def nth_element(a, first, nth, last, less) -> None:
    """std::nth_element (introselect): a[nth] is what a sorted list would hold there."""
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, less)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, less)


def quick_select(a, k, greater) -> None:
    """torch's quick_select_template (kthvalue): a[k] as if sorted ascending, where `greater`
    says a is after b (NaN after every number)."""
    lo, hi = 0, len(a) - 1
    while True:
        if hi <= lo:
            return
        if hi == lo + 1:
            if greater(a[lo], a[hi]):
                a[lo], a[hi] = a[hi], a[lo]
            return
        mid = lo + (hi - lo) // 2
        a[mid], a[lo + 1] = a[lo + 1], a[mid]
        if greater(a[lo + 1], a[hi]):
            a[lo + 1], a[hi] = a[hi], a[lo + 1]
        if greater(a[lo], a[hi]):
            a[lo], a[hi] = a[hi], a[lo]
        if greater(a[lo + 1], a[lo]):
            a[lo + 1], a[lo] = a[lo], a[lo + 1]
        i, j = lo + 1, hi
        pivot = a[lo]
        while True:
            i += 1
            while greater(pivot, a[i]):
                i += 1
            j -= 1
            while greater(a[j], pivot):
                j -= 1
            if j < i:
                break
            a[i], a[j] = a[j], a[i]
        a[lo], a[j] = a[j], a[lo]
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
