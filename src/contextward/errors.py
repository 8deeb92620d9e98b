"""The product-wide error hierarchy; every error carries a stable ``code``.

    ContextwardError(code, message)
     ├── InputError        invalid_input, unknown_type, empty_text, empty_command
     ├── StoreError        store_damaged, store_busy, store_unavailable, store_missing,
     │                     migration_failed
     ├── ConfigError       config_unreadable, project_dir_missing
     └── ContractError     contract_seed_protected, contract_owner_protected,
                           contract_personal_protected, contract_unknown_id,
                           contract_unreadable

The core keeps its own ``ContextGuardError`` (it imports nothing of ours).
Messages are structural only: they may name a path, an id or a field, never
conversation content, command output or secrets. Tests assert on ``code``.
"""

from __future__ import annotations


class ContextwardError(Exception):
    """Base of every error contextward raises on purpose; ``code`` is stable."""

    default_code = "error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code: str = code or self.default_code


class InputError(ContextwardError):
    """A caller gave something unusable (a bad type, empty text, no command)."""

    default_code = "invalid_input"


class StoreError(ContextwardError):
    """The project store cannot be used: damaged, busy, missing or unopenable."""

    default_code = "store_unavailable"


class ConfigError(ContextwardError):
    """A configuration file cannot be read at all (bad values only warn), or the
    environment names a project folder that is not there."""

    default_code = "config_unreadable"


class ContractError(ContextwardError):
    """A contract change is not allowed or names nothing."""

    default_code = "contract_unknown_id"


__all__ = ["ConfigError", "ContextwardError", "ContractError", "InputError", "StoreError"]
