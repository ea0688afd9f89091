"""Typed op properties: each op family's `OpAttrs` view (`op.attrs`,
`cls.attrs_of(props)`) gives the defaults and the written values, names only
properties its ops declare, and the package reads properties through it, not
by string keys."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    f32,
)
from xdsl.utils.exceptions import VerifyException

from lamina.dialects import qnn, relay

ROOT = Path(relay.__file__).resolve().parents[2]


def _input(shape: list[int]) -> relay.ConstantOp:
    zeros = [0.0] * math.prod(shape)
    return relay.ConstantOp(DenseIntOrFPElementsAttr.from_list(TensorType(f32, shape), zeros))


def test_conv_defaults_and_values():
    x, w = _input([1, 4, 8, 8]), _input([4, 1, 3, 3])
    plain = relay.Conv2DOp(x, _input([4, 4, 3, 3]))
    assert plain.attrs.groups == 1
    assert plain.attrs.strides is None and plain.attrs.padding is None
    grouped = relay.Conv2DOp(
        x, w, groups=relay.i64_attr(4), strides=relay.i64_array([2, 2]),
        padding=relay.i64_array([1, 1, 1, 1]),
    )
    assert grouped.attrs.groups == 4
    assert grouped.attrs.strides == (2, 2)
    assert grouped.attrs.padding == (1, 1, 1, 1)
    # the IRDL accessor still gives the attribute
    assert grouped.groups == relay.i64_attr(4)


def test_dense_defaults_and_values():
    a, b = _input([2, 3]), _input([5, 3])
    op = relay.DenseOp(a, b, transpose_b=UnitAttr(), alpha=relay.f64_attr(0.5))
    assert (op.attrs.transpose_a, op.attrs.transpose_b) == (False, True)
    assert (op.attrs.alpha, op.attrs.beta) == (0.5, 1.0)


def test_property_dict_view():
    props = {"axis": relay.i64_attr(0), "epsilon": relay.f64_attr(1e-3)}
    assert relay.LayerNormOp.attrs_of(props).axis == 0
    assert relay.LayerNormOp.attrs_of({}).axis == -1
    assert relay.BatchNormOp.attrs_of({}).axis == 1
    assert relay.BatchNormOp.attrs_of(props).epsilon == 1e-3
    assert relay.InstanceNormOp.attrs_of({}).epsilon == 1e-5
    assert relay.ClipOp.attrs_of({}).a_min is None
    assert relay.SeluOp.attrs_of({}).alpha == relay.SELU_ALPHA
    resize = relay.ResizeOp.attrs_of({})
    assert resize.method == "nearest_neighbor"
    assert resize.coordinate_transformation_mode == "half_pixel"
    assert resize.scales is None
    assert relay.PadOp.attrs_of({"pad_mode": StringAttr("edge")}).pad_mode == "edge"


def test_choice_names_op_and_choices():
    attrs = relay.PadOp.attrs_of({"pad_mode": StringAttr("mirror")})
    with pytest.raises(VerifyException, match=r'relay.pad: pad_mode must be one of .*got "mirror"'):
        attrs.checked()


def test_qnn_clamp_range():
    assert qnn.RequantizeOp.attrs_of({}).clamp(0, 255) == (0, 255)
    props = {"out_min": relay.i64_attr(3)}
    assert qnn.RequantizeOp.attrs_of(props).clamp(0, 255) == (3, 255)


def _ops() -> list[type[relay.RelayOp]]:
    return [*relay.RELAY_OPS, *qnn.QNN_OPS]


@pytest.mark.parametrize("op", _ops(), ids=lambda op: op.name)
def test_fields_are_declared_properties(op: type[relay.RelayOp]):
    declared = op.get_irdl_definition().properties
    missing = set(op.ATTRS.fields()) - set(declared)
    assert not missing, f"{op.name}: {op.ATTRS.__name__} reads undeclared {sorted(missing)}"


#: A property read by its name as a string: the old readers, a property
#: dict's or an op's `properties` indexed by a literal, a literal tested `in`
#: it.
STRING_READ = re.compile(
    r"\b(?:flag|int|ints|float|floats|str|choice|dims)_prop\("
    r"|\b(?:props|properties)(?:\[|\.get\()\s*[\"']"
    r"|[\"'][A-Za-z_]\w*[\"']\s+(?:not\s+)?in\s+(?:[\w.\[\]]+\.)?(?:props|properties)\b"
)
#: Writing a property is not a read.
WRITE = re.compile(r"^\s*[\w.]*(?:props|properties)\[[\"']\w+[\"']\]\s*=")
MAX_STRING_READS = 20


def _string_reads() -> list[str]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in {"tests", ".venv", "build", "filecheck"}:
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if STRING_READ.search(line) and not WRITE.search(line):
                found.append(f"{rel}:{i}: {line.strip()}")
    return found


def test_few_string_keyed_reads_each_explained():
    reads = _string_reads()
    assert len(reads) <= MAX_STRING_READS, "\n".join(reads)
    code = [r for r in reads if "#" not in r.split(": ", 1)[1]]
    assert not code, "say why on the line (a # comment):\n" + "\n".join(code)
