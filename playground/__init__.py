"""gradplay's playground: programs (a safe PyTorch subset), sessions and their timelines, share
tokens.

Installed from the wheel this package is `gradplay` (setup.py says why).
"""

__version__ = "0.1.0"

from .limits import Limits, default_limits
from .program import Interpreter, Program, ProgramError, RunResult, Step, parse, run
from .session import FORMAT_VERSION as TIMELINE_VERSION
from .session import run_program
from .share import ShareError, decode, encode

__all__ = [
    "__version__", "Interpreter", "Limits", "Program", "ProgramError", "RunResult", "ShareError",
    "Step", "TIMELINE_VERSION", "decode", "default_limits", "encode", "parse", "run", "run_program",
]
