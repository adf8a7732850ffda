"""Run the configured rail flows without NeMo's Colang runtime when they are plain action calls.

Every railchat flow has the same shape (``rails/rails.co``)::

    $outcome = execute <action>(<literal or $variable arguments>)
    if $outcome.blocked
      bot refuse to respond
      stop

For such a flow the whole Colang machinery (event history, flow matching, expression evaluation: about
4 ms and a good share of a turn's CPU) decides nothing that a loop cannot: call the action NeMo
registered for it with the arguments resolved from the turn, and stop at the first blocked outcome.
The flows and actions stay defined in NeMo's config and are read from the loaded ``RailsConfig``; any
flow of another shape makes its stage run through NeMo as before (``plain_flows`` returns None).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webapp.guard.verdicts import RailOutcome

# The variables a plain flow may read, per stage: what the app hands NeMo for that stage.
STAGE_VARIABLES = {
    "input": frozenset({"user_message", "image_urls"}),
    "output": frozenset({"user_message", "bot_message", "bot_reasoning"}),
}


@dataclass(frozen=True)
class ActionFlow:
    """A configured flow that runs one action and refuses when the action's outcome is blocked."""

    flow: str
    action: str
    params: Mapping[str, Any]  # literals, or "$name" references to the turn's variables

    def arguments(self, variables: Mapping[str, Any]) -> dict[str, Any]:
        """NeMo's rule: a "$name" string is replaced by the variable's value when the variable is set."""
        return {
            key: variables[value[1:]] if _is_reference(value) and value[1:] in variables else value
            for key, value in self.params.items()
        }


def _is_reference(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("$")


def _refusal_steps(elements: Sequence[Mapping[str, Any]]) -> bool:
    utterances = [
        (e.get("_type"), e.get("action_name"), (e.get("action_params") or {}).get("value")) for e in elements
    ]
    return utterances == [
        ("run_action", "utter", "refuse to respond"),
        ("run_action", "utter", "stop"),
    ]


def parse_action_flow(flow: Mapping[str, Any], stage: str) -> ActionFlow | None:
    """The flow as an ``ActionFlow`` if it has exactly the plain shape, else None."""
    elements = flow.get("elements") or []
    if len(elements) != 4:
        return None
    call, test = elements[0], elements[1]
    key = call.get("action_result_key")
    params = call.get("action_params") or {}
    if (
        call.get("_type") != "run_action"
        or call.get("action_name") in (None, "utter")
        or not key
        or test.get("_type") != "if"
        or test.get("expression") != f"${key}.blocked"
        or test.get("_next_else") != 3
        or not _refusal_steps(elements[2:])
    ):
        return None
    references = {v[1:] for v in params.values() if _is_reference(v)}
    if not references <= STAGE_VARIABLES[stage]:
        return None
    return ActionFlow(str(flow["id"]), str(call["action_name"]), dict(params))


def plain_flows(
    configured: Sequence[str], definitions: Sequence[Mapping[str, Any]], stage: str
) -> list[ActionFlow] | None:
    """The configured flows of a stage in config order, or None if any of them is not plain."""
    by_id = {d.get("id"): d for d in definitions}
    flows = [parse_action_flow(by_id.get(name) or {}, stage) for name in configured]
    return None if any(f is None for f in flows) else [f for f in flows if f is not None]


class ActionRunner:
    """Calls NeMo's registered actions for plain flows, with NeMo's registered action parameters."""

    def __init__(self, actions: Mapping[str, Any], action_params: Mapping[str, Any]) -> None:
        self._actions = actions
        self._action_params = action_params
        self._accepted: dict[str, frozenset[str]] = {}  # parameter names per action, read once

    def check(self, flows: Sequence[ActionFlow]) -> None:
        missing = [f.action for f in flows if f.action not in self._actions]
        if missing:
            raise ValueError(f"the rails config runs actions that are not registered: {', '.join(missing)}")

    async def run(self, flows: Sequence[ActionFlow], variables: Mapping[str, Any]) -> list[RailOutcome]:
        """Outcomes in config order up to and including the first block. A flow whose action does not
        return a ``RailOutcome`` ends the run early; the caller treats the missing outcomes as a failure."""
        outcomes: list[RailOutcome] = []
        for flow in flows:
            result = await self._call(flow, variables)
            if not isinstance(result, RailOutcome):
                break
            outcomes.append(result)
            if result.blocked:
                break
        return outcomes

    async def _call(self, flow: ActionFlow, variables: Mapping[str, Any]) -> Any:
        fn = self._actions[flow.action]
        kwargs = flow.arguments(variables)
        accepted = self._accepted.get(flow.action)
        if accepted is None:
            accepted = self._accepted[flow.action] = frozenset(inspect.signature(fn).parameters)
        kwargs.update({k: v for k, v in self._action_params.items() if k in accepted})
        result = fn(**kwargs)
        return await result if inspect.isawaitable(result) else result
