"""Reports that combine the limiters with text statistics."""

from . import stats
from .bucket import TokenBucket
from .window import FixedWindow, SlidingCounter, SlidingLog

WORDS_PER_UNIT = 20


def message_cost(text, words_per_unit=WORDS_PER_UNIT, max_cost=5):
    """Cost of a chat message: 1 plus 1 per full ``words_per_unit`` words."""
    if words_per_unit < 1:
        raise ValueError("words_per_unit must be at least 1")
    cost = 1 + len(stats.split_words(text)) // words_per_unit
    return min(cost, max_cost)


def throttle(messages, limiter, words_per_unit=10):
    """Run ``(time, key, text)`` messages through ``limiter``.

    Returns ``(time, key, cost, allowed, retry_after)`` per message.
    """
    results = []
    for when, key, text in messages:
        policy = limiter.policy_for(key)
        cost = message_cost(text, words_per_unit=words_per_unit, max_cost=policy.capacity)
        decision = limiter.check(key, when, cost=cost)
        results.append((when, key, cost, decision.allowed, decision.retry_after))
    return results


def compare_strategies(times, limit, size, cost=1):
    """How many of the hits at ``times`` each strategy accepts."""
    if not times:
        return {"bucket": 0, "counter": 0, "fixed": 0, "log": 0}
    windows = {
        "counter": SlidingCounter(limit, size),
        "fixed": FixedWindow(limit, size),
        "log": SlidingLog(limit, size),
    }
    bucket = TokenBucket(limit, refill_amount=limit, refill_every=size, now=times[0])
    accepted = {"bucket": 0}
    for name in windows:
        accepted[name] = 0
    for when in times:
        if bucket.try_take(when, cost=cost):
            accepted["bucket"] += 1
        for name, window in windows.items():
            if window.hit(when, cost=cost):
                accepted[name] += 1
    return accepted


def text_summary(text):
    score = stats.readability(text)
    return {
        "words": len(stats.split_words(text)),
        "sentences": len(stats.split_sentences(text, terminators=".!?;")),
        "top": stats.top_words(text, n=2, min_length=4),
        "readability_x10": stats.readability(text, scale=10),
        "avg_length_x10": stats.average_word_length(text, scale=10),
        "label": stats.grade_label(score),
    }


def format_tenths(value):
    """Render an integer count of tenths as a decimal, e.g. 123 -> '12.3'."""
    sign = ""
    if value < 0:
        sign = "-"
        value = -value
    return f"{sign}{value // 10}.{value % 10}"


def format_summary(summary):
    top = []
    for word, count in summary["top"]:
        top.append(f"{word}({count})")
    return "\n".join([
        f"words: {summary['words']}, sentences: {summary['sentences']}",
        f"readability: {format_tenths(summary['readability_x10'])} ({summary['label']})",
        f"average word length: {format_tenths(summary['avg_length_x10'])}",
        f"top: {', '.join(top) or '-'}",
    ])
