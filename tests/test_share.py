"""Share tokens: round trips, and every malformed, tampered, oversized or bomb token is refused
with a ShareError before anything large is allocated."""

from __future__ import annotations

import base64
import hashlib
import resource
import time
import zlib

import pytest

from playground import ShareError, decode, encode
from playground.share import MAX_PROGRAM_BYTES, MAX_PROGRAM_CHARS, MAX_TOKEN_CHARS

GALLERY_MLP = """import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
criterion = nn.MSELoss()
optimizer = optim.SGD(model.parameters(), lr=0.1)
x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]])
t = torch.tensor([[1.0], [0.0], [0.5]])
for step in range(20):
    optimizer.zero_grad()       # clear last step's .grad
    loss = criterion(model(x), t)
    loss.backward()             # fills every parameter's .grad
    optimizer.step()
    print(step, loss.item())
print("weight grad:", model[0].weight.grad)
"""


def _token(payload: bytes, version: str = "1") -> str:
    return version + "." + base64.urlsafe_b64encode(payload).decode().rstrip("=")


def _payload(raw: bytes, body: bytes | None = None, size: int | None = None) -> bytes:
    if body is None:
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        body = c.compress(raw) + c.flush()
    size = len(raw) if size is None else size
    return size.to_bytes(4, "big") + hashlib.sha256(raw).digest()[:4] + body


@pytest.mark.parametrize("text", [
    "", "x = 1\n", GALLERY_MLP, "print('héllo ∂ 𝔘 — 漢字 😀')\n", "a\r\nb\rc\n\t\x0c",
    "x" * MAX_PROGRAM_CHARS, "😀" * MAX_PROGRAM_CHARS,
])
def test_round_trip(text):
    token = encode(text)
    assert token.startswith("1.")
    assert set(token[2:]) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert decode(token) == text
    assert len(token) <= MAX_TOKEN_CHARS


def test_typical_gallery_program_fits_in_a_short_url():
    url = "http://127.0.0.1:5006/app#p=" + encode(GALLERY_MLP)
    assert len(url) < 1000, len(url)


def test_surrounding_whitespace_is_ignored():
    assert decode("  " + encode("x = 1") + "\n") == "x = 1"


def test_too_long_program_cannot_be_shared():
    with pytest.raises(ShareError, match="too long"):
        encode("x" * (MAX_PROGRAM_CHARS + 1))


def test_unpaired_surrogates_cannot_be_shared():
    with pytest.raises(ShareError, match="surrogate"):
        encode("x = '\udcff'")


@pytest.mark.parametrize("token,words", [
    ("", "not a gradplay share token"),
    ("hello", "not a gradplay share token"),
    ("1", "not a gradplay share token"),
    ("1.", "too short"),
    ("1.AAAA", "too short"),
    ("1.abc$def", "characters"),
    ("1.abc+/de", "characters"),
    ("1.abcd=", "characters"),
    ("1.abcde", "wrong length"),
    ("2." + encode("x = 1")[2:], "newer gradplay"),
    ("0." + encode("x = 1")[2:], "unknown share token version"),
    ("99999." + encode("x = 1")[2:], "newer gradplay"),
])
def test_malformed_tokens_are_refused(token, words):
    with pytest.raises(ShareError, match=words):
        decode(token)


def test_non_text_is_refused():
    with pytest.raises(ShareError):
        decode(b"1.abc")
    with pytest.raises(ShareError):
        encode(None)


def test_every_single_character_change_is_caught():
    token = encode(GALLERY_MLP)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for i in range(2, len(token)):
        new = alphabet[(alphabet.index(token[i]) + 1) % 64]
        tampered = token[:i] + new + token[i + 1:]
        try:
            text = decode(tampered)
        except ShareError:
            continue
        # the last character's low bits are base64 padding: the same bytes decode again
        assert text == GALLERY_MLP and i == len(token) - 1


def test_truncated_tokens_are_refused():
    token = encode(GALLERY_MLP)
    for cut in range(2, len(token), 7):
        with pytest.raises(ShareError):
            decode(token[:cut])


def test_checksum_mismatch_is_refused():
    raw = b"x = 1\n"
    payload = bytearray(_payload(raw))
    payload[4] ^= 0xFF
    with pytest.raises(ShareError, match="checksum"):
        decode(_token(bytes(payload)))


def test_extra_data_after_the_stream_is_refused():
    with pytest.raises(ShareError, match="extra data"):
        decode(_token(_payload(b"x = 1\n") + b"junk"))


def test_invalid_utf8_is_refused():
    raw = b"x = '\xff\xfe'\n"
    with pytest.raises(ShareError, match="UTF-8"):
        decode(_token(_payload(raw)))


def test_declared_size_is_checked_before_decompressing():
    payload = _payload(b"x = 1\n", size=MAX_PROGRAM_BYTES + 1)
    with pytest.raises(ShareError, match="declares a program"):
        decode(_token(payload))


def test_million_character_token_is_refused_at_once():
    start = time.perf_counter()
    with pytest.raises(ShareError, match="too long"):
        decode("1." + "A" * 1_000_000)
    assert time.perf_counter() - start < 0.5


@pytest.mark.parametrize("declared", [10, MAX_PROGRAM_BYTES])
def test_zip_bomb_is_stopped_at_the_declared_size(declared):
    # 1 GB of zeros deflates to about 1 MB; a token carries a slice of such a stream that
    # still inflates to far more than it declares
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = c.compress(b"\0" * 50_000_000) + c.flush()
    assert len(body) < 60_000
    token = _token(_payload(b"\0" * declared, body=body, size=declared))
    assert len(token) <= MAX_TOKEN_CHARS
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    with pytest.raises(ShareError, match="more data than it declares"):
        decode(token)
    assert time.perf_counter() - start < 0.5
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 20


def test_stream_shorter_than_declared_is_refused():
    raw = b"x = 1\n"
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = c.compress(raw) + c.flush()
    with pytest.raises(ShareError):
        decode(_token(_payload(raw, body=body[:-2])))
    with pytest.raises(ShareError, match="size does not match"):
        decode(_token(_payload(raw, body=body, size=len(raw) + 5)))
