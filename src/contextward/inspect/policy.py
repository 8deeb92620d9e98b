"""The keep / drop / review policy: explainable thresholds on importance and confidence.

Owns the thresholds (overridable through ``PolicyConfig``, which any
configuration layer can build from a mapping) and the decision with its
reason. Never classifies and never reads files or the store.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from .candidate import Action
from .classifier import MEMORY_KINDS, NOISE_KINDS

_MEMORY = frozenset(MEMORY_KINDS)
_NOISE = frozenset(NOISE_KINDS)


class PolicyConfigError(ValueError):
    """A threshold mapping is malformed; ``code`` is always ``invalid_config``."""

    code = "invalid_config"


@dataclass(frozen=True, slots=True)
class PolicyConfig:
    """Thresholds, each in [0, 1]. The defaults are seed 002's."""

    keep_importance: float = 0.8
    keep_confidence: float = 0.8
    drop_importance: float = 0.25
    drop_confidence: float = 0.8
    #: Provider mode: a rules memory this sure or less is kept only when the host's model
    #: names it too; otherwise it is dropped as noise the model read past.
    confirm_confidence: float = 0.82

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise PolicyConfigError(f"threshold {f.name} must be a number in [0, 1]")

    @classmethod
    def from_mapping(cls, data: Mapping[str, object]) -> PolicyConfig:
        """Build from a configuration mapping; unknown keys are an error, missing ones default."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise PolicyConfigError(f"unknown policy threshold(s): {', '.join(unknown)}")
        return cls(**data)  # type: ignore[arg-type]  # validated in __post_init__


def decide(
    kind: str, importance: float, confidence: float, config: PolicyConfig
) -> tuple[Action, str]:
    """The action for a candidate, and the rule that chose it."""
    if kind in _NOISE and confidence >= config.drop_confidence:
        return "drop", f"noise ({kind}) with confidence {confidence:.2f}"
    if (
        kind in _MEMORY
        and importance >= config.keep_importance
        and confidence >= config.keep_confidence
    ):
        return (
            "keep",
            f"importance {importance:.2f} and confidence {confidence:.2f} reach the keep thresholds",
        )
    if importance <= config.drop_importance and confidence >= config.drop_confidence:
        return "drop", f"low importance {importance:.2f} with confidence {confidence:.2f}"
    return (
        "review",
        f"importance {importance:.2f} / confidence {confidence:.2f}: not certain enough to decide alone",
    )
