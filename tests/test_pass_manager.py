"""The pass manager: contexts, opt levels, config, instruments and pipelines."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import ClassVar

import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.passes import ModulePass, PassPipeline

import lamina
from lamina import passes as manager
from lamina import pipelines
from lamina.dialects import relay
from lamina.errors import IRError, LaminaError
from lamina.passes import (
    PassContext,
    PassInfo,
    PassInstrument,
    PrintIRInstrument,
    StatisticsInstrument,
    TimingInstrument,
    VerifyInstrument,
    record_statistic,
    registry,
    run_pipeline,
)
from lamina.pipelines import standard_pipeline

GRAPH = """
func.func @main(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %w = relay.constant dense<1.0> : tensor<4x4xf32>
  %w2 = relay.constant dense<1.0> : tensor<4x4xf32>
  %0 = relay.matmul %x, %w : (tensor<1x4xf32>, tensor<4x4xf32>)
  %1 = relay.matmul %x, %w2 : (tensor<1x4xf32>, tensor<4x4xf32>)
  %2 = relay.add %0, %1 : tensor<1x4xf32>
  %3 = relay.relu %2 : tensor<1x4xf32>
  %dead = relay.relu %3 : tensor<1x4xf32>
  func.return %3 : tensor<1x4xf32>
}
"""


def graph() -> ModuleOp:
    return lamina.parse(GRAPH)


def relay_names(module: ModuleOp) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith("relay.")]


# ------------------------------------------------------------ test-only passes
LOG: list[str] = []


@dataclass(frozen=True)
class Level0Pass(ModulePass):
    name = "test-level0"
    opt_level: ClassVar[int] = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        LOG.append(self.name)


@dataclass(frozen=True)
class Level2Pass(ModulePass):
    name = "test-level2"
    opt_level: ClassVar[int] = 2

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        LOG.append(self.name)


@dataclass(frozen=True)
class Level3Pass(ModulePass):
    name = "test-level3"
    opt_level: ClassVar[int] = 3

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        LOG.append(self.name)


@dataclass(frozen=True)
class CountingPass(ModulePass):
    """Reports one counter per relu and records the context it saw."""

    name = "test-counting"
    opt_level: ClassVar[int] = 0
    seen: ClassVar[list[PassContext]] = []

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        CountingPass.seen.append(PassContext.current())
        for o in op.walk():
            if isinstance(o, relay.ReluOp):
                record_statistic("relus-seen")


@dataclass(frozen=True)
class BreakingPass(ModulePass):
    """Leaves a relay.add whose result type disagrees with its operands."""

    name = "test-breaking"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        add = next(o for o in op.walk() if isinstance(o, relay.AddOp))
        bad = relay.AddOp.create(
            operands=list(add.operands), result_types=[TensorType(f32, [7])]
        )
        add.parent.insert_op_before(bad, add)  # type: ignore[union-attr]


@dataclass(frozen=True)
class RaisingPass(ModulePass):
    name = "test-raising"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise LaminaError("test-raising failed")


TEST_PASSES = (Level0Pass, Level2Pass, Level3Pass, CountingPass, BreakingPass, RaisingPass)


@pytest.fixture(autouse=True)
def test_passes(monkeypatch: pytest.MonkeyPatch):
    for cls in TEST_PASSES:
        registry.PASSES.register(cls.name, cls, replace=True)
    LOG.clear()
    CountingPass.seen.clear()
    yield
    for cls in TEST_PASSES:
        registry.PASSES.unregister(cls.name)


class Recorder(PassInstrument):
    def __init__(self, skip: str | None = None) -> None:
        self.events: list[str] = []
        self.skip = skip

    def enter_pass_ctx(self) -> None:
        self.events.append("enter")

    def exit_pass_ctx(self) -> None:
        self.events.append("exit")

    def should_run(self, module: ModuleOp, info: PassInfo) -> bool:
        return info.name != self.skip

    def run_before_pass(self, module: ModuleOp, info: PassInfo) -> None:
        self.events.append(f"before {info.name}")

    def run_after_pass(self, module: ModuleOp, info: PassInfo) -> None:
        self.events.append(f"after {info.name}")


# ------------------------------------------------------------------- contexts
def test_default_context_is_opt_level_2():
    ctx = PassContext.current()
    assert ctx.opt_level == 2
    assert ctx.required_passes == () and ctx.disabled_passes == ()
    assert ctx.get_config("fuse-ops.max-depth") == 256


def test_context_nests_and_restores():
    outer_default = PassContext.current()
    with PassContext(opt_level=1) as a:
        assert PassContext.current() is a
        with PassContext(opt_level=3) as b:
            assert PassContext.current() is b
        assert PassContext.current() is a
    assert PassContext.current() is outer_default


@pytest.mark.parametrize("level", [-1, 4, "2", True, 2.0])
def test_bad_opt_level(level):
    with pytest.raises(LaminaError, match="opt_level must be an integer from 0 to 3"):
        PassContext(opt_level=level)


def test_config_defaults_and_values():
    ctx = PassContext(config={"fuse-ops.max-depth": 8})
    assert ctx.get_config("fuse-ops.max-depth") == 8
    assert ctx.get_config("pattern.max-iterations") == 100
    assert dict(ctx.config) == {"fuse-ops.max-depth": 8}
    with pytest.raises(TypeError):
        ctx.config["fuse-ops.max-depth"] = 3  # type: ignore[index]


def test_config_unknown_key_suggests():
    with pytest.raises(LaminaError, match=r"unknown pass config 'fuse-ops\.max_depth'"
                       r"; did you mean 'fuse-ops\.max-depth'\?"):
        PassContext(config={"fuse-ops.max_depth": 8})
    with pytest.raises(LaminaError, match="unknown pass config 'nope'"):
        PassContext().get_config("nope")


@pytest.mark.parametrize("value", ["8", 8.0, True, None])
def test_config_wrong_type(value):
    with pytest.raises(
        LaminaError, match=r"pass config 'fuse-ops\.max-depth' expects int, got"
    ):
        PassContext(config={"fuse-ops.max-depth": value})


def test_register_config_types_and_cli_parsing(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(manager.config, "_CONFIG", dict(manager.config._CONFIG))
    opt = manager.register_config("test.ratio", float, 0.5, "a test ratio")
    assert PassContext(config={"test.ratio": 1}).get_config("test.ratio") == 1.0
    assert opt.parse("0.25") == 0.25
    flag = manager.register_config("test.flag", bool, False, "a test flag")
    assert flag.parse("true") is True and flag.parse("0") is False
    with pytest.raises(LaminaError, match="expects bool"):
        flag.parse("maybe")
    with pytest.raises(LaminaError, match="expects int"):
        manager.config_options()["fuse-ops.max-depth"].parse("eight")
    with pytest.raises(LaminaError, match="already declared"):
        manager.register_config("test.ratio", int, 1, "clash")
    with pytest.raises(LaminaError, match="type must be"):
        manager.register_config("test.list", list, [], "no lists")


# ------------------------------------------------------------------ opt levels
def test_pass_opt_levels():
    assert manager.pass_opt_level(Level3Pass) == 3
    assert manager.pass_opt_level(Level2Pass()) == 2
    cse = registry.all_passes()["cse"]()
    assert manager.pass_opt_level(cse) == 2  # xDSL's, from EXTERNAL_OPT_LEVELS
    lower = registry.all_passes()["lower-relay-to-te"]()
    assert manager.pass_opt_level(lower) == 0


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (0, ["test-level0"]),
        (1, ["test-level0"]),
        (2, ["test-level0", "test-level2"]),
        (3, ["test-level0", "test-level2", "test-level3"]),
    ],
)
def test_passes_above_opt_level_are_skipped(level, expected):
    run_pipeline(graph(), "test-level0,test-level2,test-level3", PassContext(level))
    assert expected == LOG


def test_required_pass_runs_below_its_level():
    ctx = PassContext(opt_level=0, required_passes=["test-level3"])
    run_pipeline(graph(), "test-level0,test-level2,test-level3", ctx)
    assert LOG == ["test-level0", "test-level3"]


def test_disabled_pass_wins_over_required():
    ctx = PassContext(
        opt_level=3,
        required_passes=["test-level2"],
        disabled_passes=["test-level2", "test-level0"],
    )
    run_pipeline(graph(), "test-level0,test-level2,test-level3", ctx)
    assert LOG == ["test-level3"]
    assert not ctx.pass_enabled("test-level2") and ctx.pass_enabled("test-level3")


def test_unknown_required_or_disabled_pass():
    with pytest.raises(LaminaError, match=r"unknown pass 'cs' \(did you mean 'cse'\?\)"):
        PassContext(disabled_passes=["cs"])
    with pytest.raises(LaminaError, match="required_passes: unknown pass 'nope'"):
        PassContext(required_passes="nope")


def test_passes_see_the_running_context():
    ctx = PassContext(opt_level=1)
    run_pipeline(graph(), [CountingPass()], ctx)
    assert CountingPass.seen == [ctx]
    assert PassContext.current() is not ctx
    with PassContext(opt_level=3) as outer:
        run_pipeline(graph(), [CountingPass()])
    assert CountingPass.seen[-1] is outer


# ---------------------------------------------------------------- instruments
def test_instrument_hooks_in_order():
    rec = Recorder()
    run_pipeline(graph(), "test-level0,test-level2", PassContext(instruments=[rec]))
    assert rec.events == [
        "enter",
        "before test-level0",
        "after test-level0",
        "before test-level2",
        "after test-level2",
        "exit",
    ]


def test_instrument_should_run_skips():
    rec = Recorder(skip="test-level0")
    run_pipeline(graph(), "test-level0,test-level2", PassContext(instruments=[rec]))
    assert LOG == ["test-level2"]
    assert "before test-level0" not in rec.events


def test_after_hook_not_called_when_pass_raises():
    rec = Recorder()
    with pytest.raises(LaminaError, match="test-raising failed"):
        run_pipeline(graph(), "test-level0,test-raising", PassContext(instruments=[rec]))
    assert rec.events[-2:] == ["before test-raising", "exit"]


def test_instruments_must_be_instruments():
    with pytest.raises(LaminaError, match="PassInstrument"):
        PassContext(instruments=[object()])  # type: ignore[list-item]


def test_timing_table():
    timing = TimingInstrument()
    run_pipeline(
        graph(), "canonicalize,cse,cse,dce", PassContext(instruments=[timing])
    )
    assert list(timing.timings) == ["canonicalize", "cse", "dce"]
    assert timing.runs == {"canonicalize": 1, "cse": 2, "dce": 1}
    table = timing.table()
    lines = table.splitlines()
    assert lines[0] == lines[2] == "===" + "-" * 73 + "==="
    assert lines[1].strip() == "... Execution time report ..."
    assert re.fullmatch(r"  Total Execution Time: \d+\.\d{4} seconds", lines[3])
    assert lines[5] == "  ----Wall Time----  ----Name----"
    rows = [re.fullmatch(r"  +(\d+\.\d{4}) \( *(\d+\.\d)%\)  (.+)", r) for r in lines[6:]]
    assert all(rows)
    assert [m.group(3) for m in rows] == ["canonicalize", "cse", "dce", "Total"]
    assert rows[-1].group(2) == "100.0"
    assert float(rows[-1].group(1)) == pytest.approx(timing.total, abs=1e-4)


def test_print_ir_after_named_pass():
    out = io.StringIO()
    run_pipeline(
        graph(),
        "cse,dce",
        PassContext(instruments=[PrintIRInstrument(after=["cse"], stream=out)]),
    )
    text = out.getvalue()
    assert text.startswith("// -----// IR Dump After cse //----- //\n")
    assert text.count("IR Dump") == 1
    assert "relay.matmul" in text and text.count("relay.constant") == 1


def test_print_ir_before_and_after_all():
    out = io.StringIO()
    inst = PrintIRInstrument(before="all", after=True, stream=out)
    run_pipeline(graph(), "cse,dce", PassContext(instruments=[inst]))
    headers = re.findall(r"// -----// IR Dump (\w+ [\w-]+) //----- //", out.getvalue())
    assert headers == ["Before cse", "After cse", "Before dce", "After dce"]


def test_print_ir_unknown_pass():
    # Named by the option that gave it, with the closest pass.
    with pytest.raises(
        LaminaError, match=r"^--print-ir-after: unknown pass 'csee' \(did you mean 'cse'\?\)"
    ):
        PrintIRInstrument(after="csee")
    with pytest.raises(LaminaError, match=r"^--print-ir-before: unknown pass 'fuse-op' "):
        PrintIRInstrument(before=["fuse-op"])
    with pytest.raises(LaminaError, match=r"^after=: unknown pass 'x'"):
        PrintIRInstrument(after=["x"], labels=("before=", "after="))


def test_verify_each_names_the_breaking_pass():
    ctx = PassContext(instruments=[VerifyInstrument()])
    with pytest.raises(IRError) as info:
        run_pipeline(graph(), "cse,test-breaking,dce", ctx)
    msg = str(info.value)
    assert "does not verify after pass 'test-breaking' (pass #2 of 3)" in msg
    assert "does not match the inferred type" in msg


def test_verify_each_passes_valid_pipelines():
    ctx = PassContext(instruments=[VerifyInstrument()])
    module = run_pipeline(graph(), "canonicalize,cse,dce", ctx)
    module.verify()


def test_statistics_ops_and_counters():
    stats = StatisticsInstrument()
    run_pipeline(graph(), "cse,test-counting", PassContext(instruments=[stats]))
    cse, counting = stats.records
    # func, 2 constants, 2 matmuls, add, 2 relus (one dead), return
    assert (cse.name, cse.ops_before, cse.ops_after) == ("cse", 9, 6)
    assert cse.counters == {}
    assert (counting.ops_before, counting.ops_after) == (6, 6)
    assert counting.counters == {"relus-seen": 1}
    report = stats.report()
    assert "... Pass statistics report ..." in report
    assert re.search(r"^cse\n  \(S\) 9 ops-before - .*\n  \(S\) 6 ops-after", report, re.M)
    assert re.search(r"^  \(S\) 1 relus-seen - reported by the pass$", report, re.M)


def test_record_statistic_outside_a_pass_is_a_noop():
    record_statistic("nothing")
    assert manager.current_pass() is None


# ------------------------------------------------------------------ pipelines
def test_standard_pipeline_contents():
    lower = ["lower-relay-to-te", "recall-kernels", "lower-te-to-tir", "compile-kernels", "tir-vectorize"]
    lower_o2 = [*lower, "tir-cse", "lower-tir-to-llvm"]
    lower = [*lower, "lower-tir-to-llvm"]
    # at every level: integer products onto the int8 kernels, then the other
    # qnn ops as relay ops (qnn ops have no lowering of their own)
    q = ["qnn-legalize", "qnn-canonicalize"]
    qdq = "qnn-fold-qdq"  # O1+: QDQ chains as integer qnn ops, before q
    fold = "fold-constant"  # O1+, before the passes reading weights and after them
    o2 = [qdq, *q, "simplify-inference", "canonicalize", fold, "conv-dead-taps", fold, "cse", "dce"]
    o3 = [
        qdq, *q, "simplify-inference", "canonicalize", "simplify-expr", fold, "conv-dead-taps",
        "conv2d-winograd", "conv-phases", "alter-op-layout", fold, "cse", "dce",
    ]
    assert standard_pipeline(0) == [*q, *lower]
    assert standard_pipeline(1) == [qdq, *q, "simplify-inference", fold, fold, *lower]
    assert standard_pipeline(2) == [*o2, "fuse-ops", *lower_o2]
    assert standard_pipeline(3) == [*o3, "fuse-ops", *lower_o2]
    assert standard_pipeline(2, lower=False) == [*o2, "fuse-ops"]
    assert standard_pipeline(3, lower=False) == [*o3, "fuse-ops"]
    assert standard_pipeline(1, lower=False) == [qdq, *q, "simplify-inference", fold, fold]
    ctx = PassContext(
        opt_level=3,
        disabled_passes=["cse", "fuse-ops", "simplify-expr", "simplify-inference"],
    )
    assert standard_pipeline(ctx, lower=False) == [
        qdq, *q, "canonicalize", fold, "conv-dead-taps", "conv2d-winograd", "conv-phases",
        "alter-op-layout", fold, "dce",
    ]
    with PassContext(opt_level=0, required_passes=["dce"]):
        assert standard_pipeline(lower=False) == [*q, "dce"]


def test_graph_pipeline_order_follows_tvm():
    order = pipelines.GRAPH_PIPELINE
    assert order.index("qnn-fold-qdq") < order.index("qnn-legalize")  # qnn ops still there
    assert order.index("qnn-legalize") < order.index("qnn-canonicalize")
    assert order.index("simplify-inference") < order.index("fold-constant")
    assert order.index("fold-constant") < order.index("fuse-ops")
    assert order[-1] == "fuse-ops"


def test_named_pipelines_expand():
    # expansion lists every registered pass; the context filters when running
    o2 = [
        "qnn-fold-qdq", "qnn-legalize", "qnn-canonicalize", "simplify-inference", "canonicalize",
        "simplify-expr", "fold-constant", "conv-dead-taps", "conv2d-winograd", "conv-phases",
        "alter-op-layout", "fold-constant", "cse", "dce",
    ]
    names = [p.name for p in manager.resolve_pipeline("default")]
    assert names == [*o2, "fuse-ops", *pipelines.COMPILE_LOWERING]
    lowering = list(pipelines.LOWERING_PIPELINE)  # with compile-kernels after lower-te-to-tir
    lowering.insert(lowering.index("lower-te-to-tir") + 1, "compile-kernels")
    lowering.insert(lowering.index("lower-te-to-tir"), "recall-kernels")  # and recall-kernels before
    assert list(pipelines.COMPILE_LOWERING) == lowering
    assert [p.name for p in manager.resolve_pipeline("lower")] == list(
        pipelines.LOWERING_PIPELINE
    )
    assert [p.name for p in manager.resolve_pipeline(["optimize", "test-level0"])] == [
        *o2,
        "fuse-ops",
        "test-level0",
    ]


def test_optimize_pipeline_at_each_level():
    m0 = run_pipeline(graph(), "optimize", PassContext(opt_level=1))
    assert relay_names(m0).count("relay.matmul") == 2  # nothing ran at O1
    m2 = run_pipeline(graph(), "optimize", PassContext(opt_level=2))
    assert relay_names(m2) == [
        "relay.constant",
        "relay.fused",
        "relay.matmul",
        "relay.add",
        "relay.relu",
        "relay.yield",
    ]
    m3 = run_pipeline(
        graph(), "optimize", PassContext(opt_level=2, disabled_passes=["fuse-ops"])
    )
    assert relay_names(m3) == [
        "relay.constant",
        "relay.matmul",
        "relay.add",
        "relay.relu",
    ]


def test_default_pipeline_lowers_to_llvm_and_instruments_see_each_pass():
    rec = Recorder()
    module = run_pipeline(graph(), "default", PassContext(opt_level=2, instruments=[rec]))
    assert not relay_names(module)
    assert any(op.name == "llvm.func" for op in module.walk())
    ran = [e.removeprefix("after ") for e in rec.events if e.startswith("after ")]
    assert ran == [
        "qnn-fold-qdq",
        "qnn-legalize",
        "qnn-canonicalize",
        "simplify-inference",
        "canonicalize",
        "fold-constant",
        "conv-dead-taps",
        "fold-constant",
        "cse",
        "dce",
        "fuse-ops",
        *pipelines.COMPILE_LOWERING,
    ]


def test_pipeline_pass_applies_through_xdsl():
    pipeline = PassPipeline.parse_spec(registry.all_passes(), "optimize")
    module = graph()
    with PassContext(opt_level=2):
        pipeline.apply(lamina.context(), module)
    assert relay_names(module).count("relay.matmul") == 1
    assert relay_names(module).count("relay.fused") == 1


def test_pipeline_text_with_options_and_instances():
    passes = manager.resolve_pipeline(["cse", registry.all_passes()["dce"]()()])
    assert [p.name for p in passes] == ["cse", "dce"]
    assert manager.resolve_pipeline("") == []
    assert [p.name for p in manager.resolve_pipeline(PassPipeline(tuple(passes)))] == [
        "cse",
        "dce",
    ]


def test_bad_pipelines():
    with pytest.raises(LaminaError, match=r"bad pass pipeline 'cse,nope'.*nope"):
        run_pipeline(graph(), "cse,nope")
    with pytest.raises(LaminaError, match=r"bad pass pipeline 'cse\{'"):
        manager.resolve_pipeline("cse{")
    with pytest.raises(LaminaError, match="not a pass or a pipeline"):
        manager.resolve_pipeline([42])  # type: ignore[list-item]


def test_run_pipeline_returns_the_module_in_place():
    module = graph()
    assert run_pipeline(module, "cse") is module
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    assert fn.sym_name.data == "main"


# --------------------------------------------------------------- lamina-opt
def run_opt(tmp_path, capsys, *args: str) -> tuple[int, str, str]:
    from lamina.tools.opt import main

    path = tmp_path / "m.mlir"
    path.write_text(GRAPH)
    code = main([str(path), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_opt_pipeline_and_opt_level(tmp_path, capsys):
    code, out, _ = run_opt(tmp_path, capsys, "-p", "optimize", "--opt-level", "2")
    assert code == 0 and out.count("relay.matmul") == 1
    code, out, _ = run_opt(tmp_path, capsys, "-p", "optimize", "--opt-level", "1")
    assert code == 0 and out.count("relay.matmul") == 2


def test_opt_errors_are_diagnostics(tmp_path, capsys):
    code, _, err = run_opt(tmp_path, capsys, "-p", "optimiz")
    assert code == 1 and "-p: unknown pass 'optimiz' (did you mean 'optimize'?)" in err
    code, _, err = run_opt(tmp_path, capsys, "--pass-config", "fuse-ops.max-depth=x")
    assert code == 1 and "expects int, got 'x'" in err
    code, _, err = run_opt(tmp_path, capsys, "--pass-config", "max-depth")
    assert code == 1 and "expects KEY=VALUE" in err
    code, _, err = run_opt(tmp_path, capsys, "-p", "cse", "--print-ir-after", "cs")
    assert code == 1 and "unknown pass 'cs'" in err


def test_opt_verify_each_names_pass(tmp_path, capsys):
    code, _, err = run_opt(tmp_path, capsys, "-p", "cse,test-breaking")
    assert code == 1
    assert "does not verify after pass 'test-breaking'" in err
    # --verify-each=false (or --disable-verify) lets the broken IR through.
    code, out, _ = run_opt(
        tmp_path, capsys, "-p", "test-breaking", "--verify-each=false"
    )
    assert code == 0 and "tensor<7xf32>" in out


def test_opt_statistics_and_config(tmp_path, capsys):
    code, _, err = run_opt(
        tmp_path,
        capsys,
        "-p",
        "test-counting",
        "--pass-statistics",
        "--pass-config",
        "fuse-ops.max-depth=8",
    )
    assert code == 0 and "(S) 2 relus-seen" in err  # no cse: both relus
    assert CountingPass.seen[-1].get_config("fuse-ops.max-depth") == 8
