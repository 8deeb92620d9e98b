"""Inspection: transcript -> candidate memories -> keep / drop / review -> guidance (seed 002).

Readers stream Claude Code, pi, OpenAI and generic message transcripts;
units are split atomically, classified by role and position in English and
Chinese, linked by supersession, merged, and decided by an explainable
policy. Never writes anything: callers print or store the results.
"""

from .candidate import ACTIONS, Candidate, InspectionResult, candidate_id
from .capture import snapshot_of
from .classifier import CRITICAL_KINDS, MEMORY_KINDS, NOISE_KINDS
from .errors import InspectError
from .guidance import Guidance, Limits, build_guidance
from .inspector import CandidateSink, inspect_into, inspect_messages, inspect_stream
from .message import ROLES, Message
from .policy import PolicyConfig, PolicyConfigError, decide
from .provider import CandidateProvider
from .readers import FORMATS, detect, open_transcript
from .review import ReviewDecision, final_actions, keep_unresolved, parse_decisions

__all__ = [
    "ACTIONS",
    "CRITICAL_KINDS",
    "FORMATS",
    "MEMORY_KINDS",
    "NOISE_KINDS",
    "ROLES",
    "Candidate",
    "CandidateProvider",
    "CandidateSink",
    "Guidance",
    "InspectError",
    "InspectionResult",
    "Limits",
    "Message",
    "PolicyConfig",
    "PolicyConfigError",
    "ReviewDecision",
    "build_guidance",
    "candidate_id",
    "decide",
    "detect",
    "final_actions",
    "inspect_into",
    "inspect_messages",
    "inspect_stream",
    "keep_unresolved",
    "open_transcript",
    "parse_decisions",
    "snapshot_of",
]
