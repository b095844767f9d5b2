"""Record the public names of torch 2.13's namespaces that a program can import, and write
playground/program/torch_api_names.py.

A program that names something torch has and the playground does not (`torch.save`,
`nn.LSTM`, `torch.testing`) is told that it is not available in the playground, instead of
Python's AttributeError, which would suggest torch itself lacks it; a misspelt name still gets
the AttributeError. Run it (with torch installed) when torch's version changes:

    python scripts/record_torch_api_names.py
"""

from __future__ import annotations

import importlib
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "playground" / "program" / "torch_api_names.py"

HEADER = '''"""The public names of torch 2.13's namespaces that programs can import.

Written by scripts/record_torch_api_names.py (with torch installed); do not edit by hand. The
policy (expressions.get_attr) tells a program that a name torch has and the playground lacks is
not available in the playground, where a name torch lacks too is Python's AttributeError.
"""

TORCH_API_NAMES = {
'''


def main() -> None:
    from playground.program.policy import NAMESPACES

    lines = []
    for path in sorted(NAMESPACES):
        module = importlib.import_module(path)
        names = sorted(n for n in dir(module) if not n.startswith("_"))
        lines.append(f"    {path!r}: frozenset((\n")
        row = "       "
        for name in names:
            item = f" {name!r},"
            if len(row) + len(item) > 99:
                lines.append(row + "\n")
                row = "       "
            row += item
        lines.append(row + "\n    )),\n")
    OUT.write_text(HEADER + "".join(lines) + "}\n")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(NAMESPACES)} namespaces")


if __name__ == "__main__":
    main()
