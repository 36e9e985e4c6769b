"""Every size limit of the guard in one place.

The seed fixes these so a report, a directive and a hook call cost the same
whether the session is an hour or a week old.  Tests import them rather than
repeating numbers.
"""

from __future__ import annotations

# Directive (Evidence-Check v1).
DIRECTIVE_MAX_BYTES = 4096
MAX_REQUIREMENTS = 4
MAX_PREDICATES = 8
MAX_VALUES = 8
MAX_CLAIM_CHARS = 256
MAX_STRING_CHARS = 256
MAX_TOOL_CHARS = 64
MAX_PATH_SEGMENTS = 8
MAX_PATH_CHARS = 128
MAX_JSON_DEPTH = 4
MAX_JSON_ITEMS = 16
MAX_DOC_DEPTH = 10
MAX_MARKERS_PER_TEXT = 4
MAX_SCANNED_TEXT = 65536

# Report retention.
MAX_OBLIGATIONS = 128
MAX_FINDINGS = 128
MAX_ACTIONS = 128
MAX_EVENT_DIGESTS = 256
MAX_LATENCY_SAMPLES = 128
MAX_DIAGNOSTICS = 32
MAX_FINDING_DIGESTS = 8
MAX_HISTORY = 16
MAX_SEEN_TOOL_IDS = 64
MAX_SESSIONS_PER_HOST = 20
MAX_EXCERPT = 160
MAX_ERROR = 200

# Files.
MAX_REPORT_BYTES = 8 * 1024 * 1024
MAX_MODEL_CHARS = 128

# Transcript and rollout reading (every host adapter).
TAIL_BYTES = 2 * 1024 * 1024
LIVE_MAX_LINES = 512
METADATA_MAX_RECORDS = 4096
MAX_READ_PER_EVENT = 4 * 1024 * 1024
MAX_RECORD_BYTES = 1024 * 1024
MAX_DECOMPRESSED_BYTES = 512 * 1024 * 1024
BACKFILL_LIMIT_MAX = 100_000

# Tool output inspected by predicates (never stored).
MAX_OUTPUT_CHARS = 1024 * 1024
