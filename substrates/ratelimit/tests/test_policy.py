import pytest

from ratelimit import Decision, LimitError, Limiter, Policy


class TestPolicy:
    def test_defaults(self):
        policy = Policy("basic", 4)
        assert policy.per == 1
        assert policy.burst == 0
        assert policy.cost == 1
        assert policy.capacity == 4

    def test_capacity_includes_burst(self):
        assert Policy("api", 5, per=10, burst=2).capacity == 7

    @pytest.mark.parametrize(
        "kwargs,message",
        [
            ({"name": "", "rate": 1}, "policy name must not be empty"),
            ({"name": "p", "rate": 0}, "rate must be at least 1"),
            ({"name": "p", "rate": 1, "per": 0}, "period must be at least 1"),
            ({"name": "p", "rate": 1, "burst": -1}, "burst must not be negative"),
            ({"name": "p", "rate": 1, "cost": 0}, "default cost must be between 1 and the capacity"),
            ({"name": "p", "rate": 2, "burst": 1, "cost": 4}, "default cost must be between"),
        ],
    )
    def test_guards(self, kwargs, message):
        with pytest.raises(LimitError, match=message):
            Policy(**kwargs)

    def test_boundaries_accepted(self):
        policy = Policy("p", 1, per=1, burst=0, cost=1)
        assert policy.capacity == 1
        assert Policy("p", 2, burst=1, cost=3).cost == 3

    def test_new_bucket(self):
        bucket = Policy("api", 5, per=10, burst=2).new_bucket(now=3)
        assert bucket.capacity == 7
        assert bucket.tokens == 7
        assert bucket.refill_amount == 5
        assert bucket.refill_every == 10
        assert bucket.last == 3

    def test_repr(self):
        assert repr(Policy("api", 5, per=10, burst=2)) == "Policy('api', rate=5, per=10, burst=2)"


class TestDecision:
    def test_equality(self):
        assert Decision(True, 3) == Decision(True, 3, 0)
        assert Decision(True, 3) != Decision(False, 3)
        assert Decision(True, 3) != Decision(True, 2)
        assert Decision(False, 0, 5) != Decision(False, 0, 4)
        assert Decision(True, 1).__eq__((True, 1, 0)) is NotImplemented

    def test_repr(self):
        assert repr(Decision(False, 1, 10)) == "Decision(False, 1, 10)"


@pytest.fixture
def limiter():
    lim = Limiter(Policy("default", 2, per=10))
    lim.add_rule("api:", Policy("api", 5, per=10, burst=2, cost=2))
    lim.add_rule("api:admin", Policy("admin", 100))
    return lim


class TestLimiterRules:
    @pytest.mark.parametrize(
        "key,name",
        [("api:admin:1", "admin"), ("api:admin", "admin"), ("api:x", "api"), ("api:", "api"),
         ("api", "default"), ("web:1", "default"), ("", "default")],
    )
    def test_longest_prefix(self, limiter, key, name):
        assert limiter.policy_for(key).name == name

    def test_rule_order_irrelevant(self):
        lim = Limiter(Policy("default", 1))
        lim.add_rule("a:b", Policy("long", 1))
        lim.add_rule("a:", Policy("short", 1))
        assert lim.policy_for("a:b:c").name == "long"
        assert lim.policy_for("a:c").name == "short"

    def test_single_character_prefix(self):
        lim = Limiter(Policy("default", 1))
        lim.add_rule("x", Policy("short", 1))
        assert lim.policy_for("xy").name == "short"
        assert lim.policy_for("x").name == "short"
        assert lim.policy_for("y").name == "default"

    def test_rule_guards(self, limiter):
        with pytest.raises(LimitError, match="prefix must not be empty"):
            limiter.add_rule("", Policy("x", 1))
        with pytest.raises(LimitError, match="duplicate rule for 'api:'"):
            limiter.add_rule("api:", Policy("x", 1))
        limiter.add_rule("api", Policy("x", 1))
        assert limiter.policy_for("apix").name == "x"


class TestLimiterCheck:
    def test_default_cost_from_policy(self, limiter):
        assert limiter.check("api:1", 0) == Decision(True, 5)
        assert limiter.check("api:1", 0) == Decision(True, 3)
        assert limiter.check("api:1", 0) == Decision(True, 1)
        assert limiter.check("api:1", 0) == Decision(False, 1, 10)
        assert limiter.check("api:1", 0, cost=1) == Decision(True, 0)

    def test_retry_after_counts_from_refill(self, limiter):
        limiter.check("web", 3)
        limiter.check("web", 3)
        assert limiter.check("web", 8) == Decision(False, 0, 5)
        assert limiter.check("web", 13) == Decision(True, 1)

    def test_keys_are_independent(self, limiter):
        limiter.check("web:a", 0)
        limiter.check("web:a", 0)
        assert limiter.check("web:a", 0).allowed is False
        assert limiter.check("web:b", 0) == Decision(True, 1)

    def test_explicit_cost_guard(self, limiter):
        with pytest.raises(LimitError, match="cost 3 exceeds capacity 2"):
            limiter.check("web", 0, cost=3)

    def test_peek_does_not_spend(self, limiter):
        assert limiter.peek("api:9", 0) == 7
        limiter.check("api:9", 0)
        assert limiter.peek("api:9", 5) == 5
        assert limiter.peek("api:9", 10) == 7

    def test_bucket_created_at_first_sight(self, limiter):
        limiter.peek("web", 4)
        limiter.check("web", 4)
        limiter.check("web", 4)
        assert limiter.check("web", 13).allowed is False
        assert limiter.check("web", 14).allowed is True

    def test_forget_and_keys(self, limiter):
        assert limiter.keys() == []
        limiter.check("web", 0)
        limiter.check("api:1", 0)
        assert limiter.keys() == ["api:1", "web"]
        assert limiter.forget("web") is True
        assert limiter.forget("web") is False
        assert limiter.keys() == ["api:1"]
        limiter.check("api:1", 0)
        limiter.forget("api:1")
        assert limiter.check("api:1", 0) == Decision(True, 5)
