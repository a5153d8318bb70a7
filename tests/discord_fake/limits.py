"""Discord's documented limits, as the fake enforces them: one table, each row with the page
of Discord's developer documentation it comes from.

The fake reads its numbers from :data:`LIMITS` only; a test or a bench that wants a harsher or
a kinder Discord changes the fake's attributes, never this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

DOCS: Final = "https://docs.discord.com/developers"
RATE_LIMITS: Final = f"{DOCS}/topics/rate-limits"
GATEWAY: Final = f"{DOCS}/events/gateway"
INTERACTIONS: Final = f"{DOCS}/interactions/receiving-and-responding"
MESSAGES: Final = f"{DOCS}/resources/message"
COMPONENTS: Final = f"{DOCS}/components/reference"
UPLOADS: Final = f"{DOCS}/reference#uploading-files"
PERMISSIONS: Final = f"{DOCS}/topics/permissions"
STATUS_CODES: Final = f"{DOCS}/topics/opcodes-and-status-codes"
THREADS: Final = f"{DOCS}/topics/threads"
CHANNELS: Final = f"{DOCS}/resources/channel"


@dataclass(frozen=True, slots=True)
class Limit:
    """One documented limit: ``value`` (per ``per`` seconds for a rate), what it limits, and
    the documentation page that says so."""

    value: float
    what: str
    source: str
    per: float = 0.0


LIMITS: Final[dict[str, Limit]] = {
    "global_rps": Limit(
        50,
        "requests per second per bot token, across all its processes; interaction "
        "callbacks and interaction webhooks (follow-ups, edits of interaction messages) do "
        "not count; over it: 429 with global: true and X-RateLimit-Scope: global",
        f"{RATE_LIMITS}#global-rate-limit",
        per=1.0,
    ),
    "channel_messages": Limit(
        5,
        "messages created in one channel (a per-route bucket whose top-level resource is "
        "the channel; the bucket is announced by X-RateLimit-* headers on every answer)",
        f"{RATE_LIMITS}#header-format",
        per=5.0,
    ),
    "channel_edits": Limit(
        5, "message edits in one channel (its own bucket)", f"{RATE_LIMITS}#header-format", 5.0
    ),
    "interaction_webhook": Limit(
        5,
        "requests per interaction token to its webhook (follow-ups, edits and deletes of its "
        "messages): webhooks are a top-level resource of their own (webhook_id + "
        "webhook_token), so each token has its own bucket, announced by X-RateLimit-* "
        "headers; Discord publishes no number (read the headers): the fake uses what "
        "webhooks answer, 5 per 2 s",
        f"{RATE_LIMITS}#header-format",
        per=2.0,
    ),
    "thread_archive": Limit(
        0,
        "a thread is archived after its auto_archive_duration (minutes) without a new "
        "message (an edit does not count); a new message in an archived thread that is not "
        "locked unarchives it; an edit or delete of its messages, or adding a member, is "
        "refused while it is archived (400, 50083 Operation cannot be performed on an "
        "archived thread)",
        f"{THREADS}#auto-archive-duration",
    ),
    "thread_members": Limit(
        0,
        "PUT /channels/{thread}/thread-members/{user} adds a member to a thread (204, also "
        "for a member already in it); needs Send Messages in the thread and a thread that "
        "is not archived (50083)",
        f"{CHANNELS}#add-thread-member",
    ),
    "dm_opens": Limit(
        10,
        "DM channels opened (more: 40003 'You are opening direct messages too fast')",
        STATUS_CODES,
        per=10.0,
    ),
    "respond_within": Limit(
        3.0,
        "seconds to answer an interaction (callback) before its token stops answering (10062)",
        f"{INTERACTIONS}#responding-to-an-interaction",
    ),
    "token_life": Limit(
        15 * 60.0,
        "seconds an interaction token can send follow-ups and edit or delete its messages",
        f"{INTERACTIONS}#followup-messages",
    ),
    "content": Limit(2000, "characters of message content", f"{MESSAGES}#create-message"),
    "embeds": Limit(10, "embeds in one message", f"{MESSAGES}#create-message"),
    "embed_total": Limit(
        6000, "characters in all the embeds of one message", f"{MESSAGES}#embed-object-embed-limits"
    ),
    "rows": Limit(5, "action rows in one message", f"{COMPONENTS}#action-row"),
    "buttons_per_row": Limit(5, "buttons in one action row", f"{COMPONENTS}#action-row"),
    "select_options": Limit(25, "options of a select menu", f"{COMPONENTS}#string-select"),
    "label": Limit(80, "characters of a button label", f"{COMPONENTS}#button"),
    "custom_id": Limit(100, "characters of a custom_id", f"{COMPONENTS}#button"),
    "files": Limit(10, "files attached to one message", f"{MESSAGES}#create-message"),
    "upload_bytes": Limit(
        10 * 1024 * 1024,
        "bytes of all the files of one request (no boost); more: 413 Request Entity Too "
        "Large, JSON error code 40005",
        UPLOADS,
    ),
    "ephemeral_via_channel": Limit(
        0,
        "ephemeral messages exist only for their interaction: the channel routes do not know "
        "them (404, 10008 Unknown Message); they are edited through the interaction webhook",
        f"{INTERACTIONS}#edit-followup-message",
    ),
    "attachment_names": Limit(
        0,
        "an embed shows an uploaded file by attachment://NAME, NAME a file of the same "
        "request or an attachment the message keeps",
        f"{MESSAGES}#embed-object-embed-image-structure",
    ),
    "embed_links": Limit(
        0, "a bot message with embeds needs Embed Links (1 << 14) in a guild channel", PERMISSIONS
    ),
    "attach_files": Limit(
        0, "a bot message with files needs Attach Files (1 << 15) in a guild channel", PERMISSIONS
    ),
    "mention_notifies": Limit(
        0,
        "a user mention (<@id>) in the content notifies that user only when the message is "
        "created (an edit that adds a mention notifies nobody), never in an ephemeral message "
        "nor one with the SUPPRESS_NOTIFICATIONS flag (1 << 12), "
        "and only if allowed_mentions lets it (parse 'users' or the id in users; without "
        "allowed_mentions every mention does); a new DM notifies its recipient",
        f"{MESSAGES}#allowed-mentions-object",
    ),
    "dms_to_shard_0": Limit(
        0,
        "direct-message events (a press in a DM included) reach shard 0 only; a guild's "
        "events reach shard (guild_id >> 22) % num_shards",
        f"{GATEWAY}#sharding",
    ),
    "identify_concurrency": Limit(
        1,
        "IDENTIFYs per 5 seconds per rate-limit bucket (shard_id % max_concurrency), for "
        "all processes of the bot",
        f"{GATEWAY}#session-start-limit-object",
        per=5.0,
    ),
}


def limit(name: str) -> float:
    """The value of the limit ``name``.

    >>> limit("global_rps"), limit("content")
    (50, 2000)
    """
    return LIMITS[name].value


def rate(name: str) -> tuple[int, float]:
    """(count, seconds) of the rate limit ``name``.

    >>> rate("channel_messages")
    (5, 5.0)
    """
    row = LIMITS[name]
    return int(row.value), row.per
