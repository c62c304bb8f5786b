"""Encrypted checkpoints (``enc_key`` / ``dec_key``) in MindSpore's block layout.

MindSpore encrypts the serialized records in blocks of at most 64 MiB of
plaintext.  Each block is laid out as (integers are 4-byte little-endian)::

    magic            0x7F3A5ED8 AES-GCM, 0x7F3A5ED9 AES-CBC, 0x7F3A5EDA SM4-CBC
    tag              16 bytes, AES-GCM only: the GCM authentication tag
    block_length     the length of the next four fields together
    iv_length        always 16
    iv               16 random bytes
    cipher_length
    ciphertext       GCM: as long as the plaintext; CBC: PKCS#7-padded

AES-GCM uses the first 12 bytes of the 16-byte IV as its nonce (observed with
MindSpore 2.10: a file it writes decrypts with exactly that, and it reads the
files written here), with no associated data.  The key length picks AES-128,
-192 or -256 (16, 24 or 32 bytes); SM4 takes 16 bytes.

The ciphers come from the ``cryptography`` package, imported only when a key
is given (``pip install cellkit[crypto]``).
"""
from __future__ import annotations

import os
import struct

__all__ = ["MODES", "encrypt", "decrypt", "is_encrypted", "CipherError"]

MODES = {"AES-GCM": 0x7F3A5ED8, "AES-CBC": 0x7F3A5ED9, "SM4-CBC": 0x7F3A5EDA}
_BLOCK_PLAINTEXT = 64 * 1024 * 1024
_IV_BYTES = 16
_TAG_BYTES = 16
_GCM_NONCE_BYTES = 12
_INT = struct.Struct("<i")
_MAGIC = struct.Struct("<I")


class CipherError(ValueError):
    """Encryption or decryption failed (the caller adds the file name)."""


def _crypto():
    try:
        from cryptography.hazmat.primitives import padding
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        raise NotImplementedError(
            "encrypted checkpoints need the 'cryptography' package: pip install cryptography "
            "(or pip install cellkit[crypto])"
        ) from None
    return padding, Cipher, algorithms, modes, AESGCM


def _check(key, mode):
    if mode not in MODES:
        raise ValueError(f"the encryption mode must be one of {sorted(MODES)}, but got {mode!r}")
    allowed = (16,) if mode == "SM4-CBC" else (16, 24, 32)
    if len(key) not in allowed:
        lengths = ", ".join(map(str, allowed[:-1])) + " or " * (len(allowed) > 1) + str(allowed[-1])
        raise ValueError(f"a {mode} key must be {lengths} bytes long, but got {len(key)}")


def is_encrypted(content):
    """Whether ``content`` starts like one of MindSpore's encrypted blocks."""
    return len(content) >= 4 and _MAGIC.unpack_from(content)[0] in MODES.values()


def encrypt(plaintext, key, mode):
    """``plaintext`` encrypted with ``key`` in MindSpore's block layout."""
    _check(key, mode)
    padding, Cipher, algorithms, modes, AESGCM = _crypto()
    out = bytearray()
    for start in range(0, len(plaintext), _BLOCK_PLAINTEXT):
        block = plaintext[start:start + _BLOCK_PLAINTEXT]
        iv = os.urandom(_IV_BYTES)
        tag = b""
        if mode == "AES-GCM":
            sealed = AESGCM(key).encrypt(iv[:_GCM_NONCE_BYTES], bytes(block), None)
            ciphertext, tag = sealed[:-_TAG_BYTES], sealed[-_TAG_BYTES:]
        else:
            algorithm = algorithms.AES(key) if mode == "AES-CBC" else algorithms.SM4(key)
            padder = padding.PKCS7(128).padder()
            padded = padder.update(bytes(block)) + padder.finalize()
            encryptor = Cipher(algorithm, modes.CBC(iv)).encryptor()
            ciphertext = encryptor.update(padded) + encryptor.finalize()
        body = _INT.pack(_IV_BYTES) + iv + _INT.pack(len(ciphertext)) + ciphertext
        out += _MAGIC.pack(MODES[mode]) + tag + _INT.pack(len(body)) + body
    return bytes(out)


def decrypt(content, key, mode):
    """The plaintext of an encrypted checkpoint; CipherError if it cannot be decrypted."""
    _check(key, mode)
    padding, Cipher, algorithms, modes, AESGCM = _crypto()
    plain = bytearray()
    pos = 0
    size = len(content)

    def take(n, what):
        nonlocal pos
        if n < 0 or pos + n > size:
            raise CipherError(f"the encrypted data ends inside a block's {what}")
        piece = content[pos:pos + n]
        pos += n
        return piece

    while pos < size:
        magic = _MAGIC.unpack(take(4, "header"))[0]
        if magic != MODES[mode]:
            other = {v: k for k, v in MODES.items()}.get(magic)
            hint = f" (it was encrypted with {other})" if other else " (it is not an encrypted checkpoint)"
            raise CipherError(f"the data is not encrypted with {mode}{hint}")
        tag = take(_TAG_BYTES, "tag") if mode == "AES-GCM" else b""
        block_length = _INT.unpack(take(4, "header"))[0]
        block_end = pos + block_length
        iv_length = _INT.unpack(take(4, "header"))[0]
        iv = take(iv_length, "IV")
        cipher_length = _INT.unpack(take(4, "header"))[0]
        ciphertext = take(cipher_length, "ciphertext")
        if iv_length != _IV_BYTES or pos != block_end:
            raise CipherError("an encrypted block's lengths do not add up")
        try:
            if mode == "AES-GCM":
                plain += AESGCM(key).decrypt(iv[:_GCM_NONCE_BYTES], ciphertext + tag, None)
            else:
                algorithm = algorithms.AES(key) if mode == "AES-CBC" else algorithms.SM4(key)
                decryptor = Cipher(algorithm, modes.CBC(iv)).decryptor()
                padded = decryptor.update(ciphertext) + decryptor.finalize()
                unpadder = padding.PKCS7(128).unpadder()
                plain += unpadder.update(padded) + unpadder.finalize()
        except Exception as exc:  # InvalidTag, bad padding, bad lengths
            raise CipherError(f"decryption failed: the key or mode is wrong, or the file was tampered with "
                              f"({type(exc).__name__})") from None
    return bytes(plain)
