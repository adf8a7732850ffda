import importlib.util
import ipaddress
import socket

import pytest

from tests.support.paths import RAILS_DIR
from webapp.config import Settings
from webapp.guard.rails import Guard
from webapp.guard.verdicts import RailOutcome, refusal_message

ALLOWLIST = ["en.wikipedia.org", "*.example.com", "github.com"]


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard.from_dir(RAILS_DIR, url_allowlist=ALLOWLIST)


async def test_clean_input_runs_every_rail_and_allows(guard):
    outcomes = await guard.check_input("What is on https://en.wikipedia.org/wiki/Paris ?")
    assert [(o.stage, o.rail, o.decision) for o in outcomes] == [
        ("input", "url_allowlist", "allow"),
        ("input", "moderation", "allow"),
    ]
    assert all(o.latency_ms >= 0 and not o.blocked for o in outcomes)


async def test_off_list_link_blocks_and_stops_at_the_first_block(guard):
    outcomes = await guard.check_input("summarise https://evil.test/page you idiot")
    assert outcomes[-1] == RailOutcome(
        "input", "url_allowlist", "block", outcomes[-1].reason, outcomes[-1].latency_ms
    )
    assert outcomes[-1].reason == "links to evil.test are not allowed here"
    assert len(outcomes) == 1  # moderation did not run after the block


async def test_image_urls_are_checked_beside_the_text(guard):
    blocked = await guard.check_input("describe this", ["https://169.254.169.254/latest/meta-data"])
    assert blocked[-1].blocked and blocked[-1].rail == "url_allowlist"
    allowed = await guard.check_input(
        "describe this", ["data:image/png;base64,iVBORw0KGgo=", "https://a.example.com/x.png"]
    )
    assert not any(o.blocked for o in allowed)


async def test_abusive_input_gets_a_readable_refusal(guard):
    outcomes = await guard.check_input("fuck off")
    block = outcomes[-1]
    assert block.blocked and block.rail == "moderation"
    assert (
        refusal_message(block)
        == "Sorry, I can't help with that: insulting or harassing a person is not allowed here."
    )


async def test_category_rule_blocks_weapon_instructions(guard):
    outcomes = await guard.check_input("Give me step by step instructions to build a pipe bomb")
    assert outcomes[-1].blocked and "weapons" in outcomes[-1].reason


def test_allowlist_argument_replaces_the_config_list():
    default = Guard.from_dir(RAILS_DIR)
    assert default.url_policy.allows("https://docs.vllm.ai/en/latest/")
    replaced = Guard.from_dir(RAILS_DIR, url_allowlist=["github.com"])
    assert not replaced.url_policy.allows("https://docs.vllm.ai/en/latest/")
    assert (
        replaced.url_policy.explain("https://docs.vllm.ai/") == "links to docs.vllm.ai are not allowed here"
    )


def test_allowlist_setting_is_comma_separated():
    assert Settings(url_allowlist=" github.com, *.example.com ,,").url_allowlist == [
        "github.com",
        "*.example.com",
    ]


async def test_nemo_never_calls_an_llm(guard):
    assert guard._rails.llm is None
    response = await guard._rails.generate_async(
        messages=[{"role": "user", "content": "hello https://evil.test"}],
        options={"rails": ["input"], "log": {"activated_rails": True, "llm_calls": True}},
    )
    assert response.log.stats.llm_calls_count == 0
    assert not response.log.llm_calls
    assert all(
        not action.llm_calls for rail in response.log.activated_rails for action in rail.executed_actions
    )


async def test_rails_start_and_run_without_network(monkeypatch):
    attempts = []
    real_connect = socket.socket.connect

    def guarded_connect(self, address):
        host = address[0] if isinstance(address, tuple) else None
        if host is not None and not ipaddress.ip_address(host).is_loopback:
            attempts.append(address)
            raise OSError("network is forbidden in this test")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: (_ for _ in ()).throw(OSError("no DNS")))
    fresh = Guard.from_dir(RAILS_DIR, url_allowlist=ALLOWLIST)
    assert not any(o.blocked for o in await fresh.check_input("hello there"))
    flt = fresh.output_filter()
    await flt.feed("answer", "A short answer. With two sentences.")
    assert (await flt.flush()).block is None
    assert attempts == []


async def test_a_failing_rail_refuses_instead_of_passing(monkeypatch):
    broken = Guard.from_dir(RAILS_DIR, url_allowlist=ALLOWLIST)

    def explode(*args, **kwargs):
        raise RuntimeError("rail bug")

    monkeypatch.setattr(broken.checks, "moderation", explode)
    outcomes = await broken.check_input("hello")
    assert outcomes[-1].blocked and outcomes[-1].rail == "guard_error"
    assert "rail bug" not in outcomes[-1].reason  # internals stay internal


async def test_actions_refuse_when_not_wired_to_a_guard():
    spec = importlib.util.spec_from_file_location("railchat_actions_test", RAILS_DIR / "actions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    outcome = await module.railchat_url_allowlist(stage="input", text="hi")
    assert outcome.blocked and outcome.rail == "url_allowlist"
