"""`MergeforgeEnv`: the OpenEnv client of `mergeforge serve`, with typed actions.

    from mergeforge_env import MergeforgeAction, MergeforgeEnv

    with MergeforgeEnv(base_url="http://127.0.0.1:8000").sync() as env:
        result = env.reset(task_id="calculator-c80129ecf3")
        path = next(iter(result.observation.files))
        result = env.step(MergeforgeAction.read_file(path))
        print(result.observation.last_output)
"""

from typing import Any, Dict

from openenv.core import EnvClient
from openenv.core.client_types import StepResult

from .models import MergeforgeAction, MergeforgeObservation, MergeforgeState


class MergeforgeEnv(EnvClient[MergeforgeAction, MergeforgeObservation, MergeforgeState]):
    """One WebSocket session with a mergeforge server: one episode at a time.

    `reset` takes `task_id`, `difficulty` (`easy`, `medium`, `hard`), `seed` or
    `episode_id`; without a task id the server picks one by seed or in rotation.
    """

    def _step_payload(self, action: MergeforgeAction) -> Dict[str, Any]:
        return action.payload()

    def _parse_result(self, payload: Dict[str, Any]) -> StepResult[MergeforgeObservation]:
        data = dict(payload.get("observation", {}))
        data.pop("reward", None)
        data["done"] = payload.get("done", data.get("done", False))
        observation = MergeforgeObservation(reward=payload.get("reward"), **data)
        return StepResult(observation=observation, reward=payload.get("reward"), done=observation.done)

    def _parse_state(self, payload: Dict[str, Any]) -> MergeforgeState:
        return MergeforgeState(**payload)
