"""Actions, observations and state of the mergeforge environment.

They mirror the server's own types (`GET /schema`): the observation carries exactly the
keys of the server's allowlist (src/env/observation.rs), and an action is one of the
episode's tools.
"""

from typing import Any, Dict, List, Literal, Optional, Union

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

Tool = Literal["write_file", "read_file", "edit_file", "run", "run_tests", "finish"]


class MergeforgeAction(Action):
    """One step: a tool and its arguments. Build one with the class methods."""

    tool: Tool = Field(..., description="The episode tool to call")
    path: Optional[str] = Field(default=None, description="File path relative to the repository root")
    content: Optional[str] = Field(default=None, description="write_file: the whole new text of the file")
    old_string: Optional[str] = Field(default=None, description="edit_file: the exact text to replace (once)")
    new_string: Optional[str] = Field(default=None, description="edit_file: the text that takes its place")
    start_line: Optional[int] = Field(default=None, ge=1, description="First line (1-based)")
    end_line: Optional[int] = Field(default=None, ge=0, description="Last line (inclusive)")
    command: Optional[Union[str, List[str]]] = Field(
        default=None, description="run: a shell command line or an argv list"
    )

    @classmethod
    def write_file(cls, path: str, content: str) -> "MergeforgeAction":
        """Replace the whole file `path` by `content` (e.g. a resolved conflicted file)."""
        return cls(tool="write_file", path=path, content=content)

    @classmethod
    def read_file(
        cls, path: str, start_line: Optional[int] = None, end_line: Optional[int] = None
    ) -> "MergeforgeAction":
        """Show `path`, or its lines `start_line..=end_line`, numbered."""
        return cls(tool="read_file", path=path, start_line=start_line, end_line=end_line)

    @classmethod
    def edit_file(cls, path: str, old_string: str, new_string: str) -> "MergeforgeAction":
        """Replace the one occurrence of `old_string` in `path` by `new_string`."""
        return cls(tool="edit_file", path=path, old_string=old_string, new_string=new_string)

    @classmethod
    def run(cls, command: Union[str, List[str]]) -> "MergeforgeAction":
        """Run a command in the repository, inside the server's sandbox."""
        return cls(tool="run", command=command)

    @classmethod
    def run_tests(cls) -> "MergeforgeAction":
        """Run the task's graded test command on the current tree."""
        return cls(tool="run_tests")

    @classmethod
    def finish(cls) -> "MergeforgeAction":
        """End the episode."""
        return cls(tool="finish")

    def payload(self) -> Dict[str, Any]:
        """The step's JSON data as the server reads it."""
        if self.tool == "write_file":
            return {"file": self.path, "resolution": self.content}
        data: Dict[str, Any] = {"tool": self.tool}
        for key in ("path", "old_string", "new_string", "start_line", "end_line", "command"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data


class MergeforgeObservation(Observation):
    """What the agent sees after a reset or a step."""

    files: Dict[str, str] = Field(default_factory=dict, description="Conflicted files: path -> content")
    conflict_count: int = Field(default=0, description="Conflict blocks left")
    syntax_valid: bool = Field(default=False, description="Every Python file of the working tree parses")
    tests_passing: bool = Field(default=False, description="The graded test run passed on the current tree")
    tests: Optional[Dict[str, Any]] = Field(
        default=None, description="passed/failed/total of the last run on the current tree (None before any)"
    )
    task: Dict[str, Any] = Field(default_factory=dict, description="The task's id")
    last_output: str = Field(default="", description="Output of the last tool")
    reward_components: Dict[str, float] = Field(default_factory=dict, description="This step's reward by component")
    max_reward: float = Field(default=0.0, description="The most an episode can earn")
    total_reward: float = Field(default=0.0, description="Reward earned so far")
    step_count: int = Field(default=0, description="Steps taken")
    max_steps: int = Field(default=0, description="Steps allowed")


class MergeforgeState(State):
    """The episode's state (`GET /state` or the WebSocket `state` frame)."""

    task_id: Optional[str] = None
    done: bool = False
    total_reward: float = 0.0
    max_reward: float = 0.0
    max_steps: int = 0
    conflict_count: int = 0
