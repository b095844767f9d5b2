"""gradplay's playground: programs (a safe PyTorch subset), sessions and their timelines, share
tokens."""

from .limits import Limits, default_limits
from .program import Interpreter, Program, ProgramError, RunResult, Step, parse, run
from .session import FORMAT_VERSION as TIMELINE_VERSION
from .session import run_program
from .share import ShareError, decode, encode

__all__ = [
    "Interpreter", "Limits", "Program", "ProgramError", "RunResult", "ShareError", "Step",
    "TIMELINE_VERSION", "decode", "default_limits", "encode", "parse", "run",
    "run_program",
]
