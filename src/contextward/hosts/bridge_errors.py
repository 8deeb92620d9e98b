"""Errors of the JSONL bridge.

    BridgeError(code, request_id)
        code = "bad_frame"              not UTF-8, not JSON, not an object, a missing or wrong field
        code = "frame_too_large"        a line over the 2 MB frame cap (skipped to its newline)
        code = "unsupported_version"    a protocol_version other than 1, or none
        code = "unmatched_response"     a provider_response nobody is waiting for
        code = "busy"                   too many requests in flight
        code = "duplicate_request_id"   a request id that is still in flight
    OperationError(code)                answered inside a result frame with "ok": false
        code = "unknown_operation"      no such operation
        code = "invalid_request"        the operation's arguments are missing or malformed
        code = "operation_unavailable"  the part of contextward behind the operation is not installed
        code = "timeout"                the operation did not finish within its timeout
        code = "result_too_large"       the result would exceed the frame cap
        code = "internal_error"         the operation failed in an unexpected way
    ProviderError(code)                 raised inside an operation that asked the host's model
        code = "provider_timeout"       the host did not answer a provider_request in time
        code = "provider_error"         the host answered with "ok": false or an unusable answer
        code = "provider_closed"        the host closed the bridge while an answer was pending

Messages are structural only: an operation name, a field name, a size, the
supported version. They never carry conversation content or secrets.
"""

from __future__ import annotations

from typing import Literal

FrameErrorCode = Literal[
    "bad_frame",
    "busy",
    "duplicate_request_id",
    "frame_too_large",
    "unmatched_response",
    "unsupported_version",
]
OperationErrorCode = Literal[
    "internal_error",
    "invalid_request",
    "operation_unavailable",
    "result_too_large",
    "timeout",
    "unknown_operation",
]
ProviderErrorCode = Literal["provider_closed", "provider_error", "provider_timeout"]


class BridgeError(Exception):
    """Input the bridge cannot take as a request; answered with an ``error`` frame."""

    def __init__(
        self, code: FrameErrorCode, message: str, *, request_id: str | int | None = None
    ) -> None:
        super().__init__(message)
        self.code: FrameErrorCode = code
        self.request_id = request_id


class OperationError(Exception):
    """A request that was read but could not be carried out; answered with ``"ok": false``."""

    def __init__(self, code: OperationErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: OperationErrorCode = code


class ProviderError(Exception):
    """The host's model could not answer; an operation catches this and falls back."""

    def __init__(self, code: ProviderErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ProviderErrorCode = code
