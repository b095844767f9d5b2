"""Share tokens: a program's text as a compact, URL-safe, versioned and checksummed string.

Format version 1 (docs/share-token.md):

    token   = "1." base64url-without-padding(payload)
    payload = size (4 bytes, big-endian: length of the UTF-8 text)
              check (4 bytes: the first 4 bytes of SHA-256 of the UTF-8 text)
              body (the UTF-8 text compressed with raw DEFLATE, no zlib header)

The decoder trusts nothing: it checks the token's length and alphabet, then the declared size,
and only then inflates, with an output cap of the declared size, so a small token cannot expand
into a large allocation (no zip bombs). Old versions keep decoding when new ones are added.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import zlib

from .limits import Limits

__all__ = ["ShareError", "encode", "decode", "VERSION", "MAX_PROGRAM_BYTES", "MAX_TOKEN_CHARS"]

VERSION = 1
PREFIX = f"{VERSION}."
MAX_PROGRAM_CHARS = Limits().max_program_chars
MAX_PROGRAM_BYTES = 4 * MAX_PROGRAM_CHARS  # UTF-8 needs at most 4 bytes per character
_HEADER = 8
# DEFLATE expands incompressible data by at most 5 bytes per 16 KiB block (+ a few bytes)
_MAX_PAYLOAD = _HEADER + MAX_PROGRAM_BYTES + 5 * (MAX_PROGRAM_BYTES // 16384 + 1) + 16
MAX_TOKEN_CHARS = len(PREFIX) + (_MAX_PAYLOAD * 4 + 2) // 3

_ALPHABET = re.compile(r"[A-Za-z0-9_-]*")
_VERSIONED = re.compile(r"([0-9]{1,6})\.")


class ShareError(ValueError):
    """A token that cannot be opened (or a program that cannot be shared), and why."""


def encode(text: str) -> str:
    """The share token of a program's text."""
    if not isinstance(text, str):
        raise ShareError("only program text can be shared")
    raw = text.encode("utf-8", "strict") if text.isascii() else _utf8(text)
    if len(text) > MAX_PROGRAM_CHARS:
        raise ShareError(f"the program is too long to share: {len(text):,} characters (the "
                         f"limit is {MAX_PROGRAM_CHARS:,})")
    comp = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    body = comp.compress(raw) + comp.flush()
    payload = len(raw).to_bytes(4, "big") + _check(raw) + body
    return PREFIX + base64.urlsafe_b64encode(payload).decode("ascii").rstrip("=")


def decode(token: str) -> str:
    """The program text in a share token; ShareError if the token is not a valid one."""
    if not isinstance(token, str):
        raise ShareError("a share token must be text")
    token = token.strip()
    if len(token) > MAX_TOKEN_CHARS:
        raise ShareError(f"the share token is too long: {len(token):,} characters (a valid "
                         f"token has at most {MAX_TOKEN_CHARS:,})")
    m = _VERSIONED.match(token)
    if m is None:
        raise ShareError("this is not a gradplay share token (it should start with "
                         f"'{PREFIX}')")
    version = int(m.group(1))
    if version != VERSION:
        if version > VERSION:
            raise ShareError(f"this link was made by a newer gradplay (token version "
                             f"{version}); this one opens version {VERSION}")
        raise ShareError(f"unknown share token version {version}")
    data = token[m.end():]
    if not _ALPHABET.fullmatch(data):
        raise ShareError("the share token contains characters that cannot be in a token (it "
                         "may have been cut or changed when it was copied)")
    if len(data) % 4 == 1:
        raise ShareError("the share token has a wrong length (it may have been cut when it was "
                         "copied)")
    try:
        payload = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        raise ShareError("the share token is damaged (it is not valid base64url)") from None
    if len(payload) < _HEADER + 2:
        raise ShareError("the share token is too short to hold a program")
    size = int.from_bytes(payload[:4], "big")
    check = payload[4:8]
    if size > MAX_PROGRAM_BYTES:
        raise ShareError(f"the share token declares a program of {size:,} bytes (at most "
                         f"{MAX_PROGRAM_BYTES:,} can be shared)")
    inflater = zlib.decompressobj(-15)
    try:
        raw = inflater.decompress(payload[_HEADER:], size + 1)
    except zlib.error:
        raise ShareError("the share token is damaged (its data does not decompress)") from None
    if len(raw) > size or inflater.unconsumed_tail:
        raise ShareError("the share token holds more data than it declares")
    if not inflater.eof:
        raise ShareError("the share token is damaged (its data is incomplete)")
    if inflater.unused_data:
        raise ShareError("the share token has extra data after the program")
    if len(raw) != size:
        raise ShareError("the share token is damaged (its size does not match)")
    if _check(raw) != check:
        raise ShareError("the share token is damaged (its checksum does not match)")
    try:
        text = raw.decode("utf-8", "strict")
    except UnicodeDecodeError:
        raise ShareError("the share token is damaged (its text is not valid UTF-8)") from None
    if len(text) > MAX_PROGRAM_CHARS:
        raise ShareError(f"the shared program is too long: {len(text):,} characters (the "
                         f"limit is {MAX_PROGRAM_CHARS:,})")
    return text


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8", "strict")
    except UnicodeEncodeError:  # lone surrogates cannot be written as UTF-8
        raise ShareError("the program contains characters that cannot be shared "
                         "(unpaired surrogates)") from None


def _check(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()[:4]
