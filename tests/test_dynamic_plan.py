"""The per-shape workspace plan of a symbolic model: shared by the shapes that
round to the same sizes, and still valid (no two live buffers overlap) at each."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lamina.runtime.dynamic import DynamicPlan, bucket
from lamina.symbolic import Sym, evaluate

P, S = Sym.var("past"), Sym.var("seq")
#: (first use, last use, bytes) of buffers that grow with the sizes (a decoder's).
RANGES = [(0, 2, 4 * (P + S) * 64), (1, 3, 4 * S * 64), (2, 5, 4 * (P + S) * S), (3, 4, 256), (4, 6, 8 * P + 8)]


def test_buckets_are_at_most_an_eighth_larger_and_monotone() -> None:
    assert [bucket(n) for n in (1, 8, 9, 16, 17, 100, 1000)] == [1, 8, 9, 16, 18, 104, 1024]
    for n in range(1, 5000):
        assert n <= bucket(n) <= n + n // 8 and bucket(n) <= bucket(n + 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3000), st.integers(1, 64)), min_size=1, max_size=6))
def test_a_shared_plan_holds_every_shape_it_is_taken_for(shapes: list[tuple[int, int]]) -> None:
    """Whatever plan a run gets (made at its sizes, or an earlier one that
    covers them), no two buffers live at once overlap at its sizes."""
    plan = DynamicPlan(RANGES)
    assert plan.shared
    for past, seq in shapes:
        env = {"past": past, "seq": seq}
        got = plan.plan(env)
        sizes = [evaluate(n, env) for _, _, n in RANGES]
        for i, (a0, a1, _) in enumerate(RANGES):
            for j, (b0, b1, _) in enumerate(RANGES[:i]):
                if a0 <= b1 and b0 <= a1:  # both live at once: disjoint bytes
                    lo, hi = sorted([(got.offsets[i], sizes[i]), (got.offsets[j], sizes[j])])
                    assert lo[0] + lo[1] <= hi[0]
        assert got.size >= max(o + n for o, n in zip(got.offsets, sizes, strict=True))


def test_a_grown_size_plans_ahead_at_most_twice_the_memory() -> None:
    plan = DynamicPlan(RANGES)
    first = plan.plan({"past": 104, "seq": 1})  # (104: a bucket)
    assert plan.plan({"past": 100, "seq": 1}) is first
    grown = plan.plan({"past": 105, "seq": 1})  # planned at 2 * 104
    assert grown is not first and plan.plan({"past": 208, "seq": 1}) is grown
    exact = DynamicPlan(RANGES).plan({"past": 208, "seq": 1})
    assert grown.size == exact.size
    assert plan.plan({"past": 50, "seq": 1}) is grown  # the most recent plan that covers it


def test_a_decoder_growing_one_position_a_step_plans_once_per_doubling() -> None:
    plan = DynamicPlan(RANGES)
    plans = {id(plan.plan({"past": p, "seq": 1})) for p in range(1, 513)}
    assert len(plans) <= 10  # one per doubling


def test_a_size_that_shrinks_a_buffer_is_planned_exactly() -> None:
    plan = DynamicPlan([(0, 1, 4 * (S - P + 100)), (1, 2, 4 * S)])
    assert not plan.shared
    assert plan.plan({"past": 3, "seq": 9}) is not plan.plan({"past": 3, "seq": 10})
