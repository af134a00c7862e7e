"""Plays a gold episode on a running `mergeforge serve` through the official MCP Python SDK.

Usage: python mcp_client.py BASE_URL DATASET_DIR TASK_ID

Uses only the `mcp` package (Streamable HTTP transport at BASE_URL/mcp, `ClientSession`),
which checks every structured result against the tool's output schema:
1. initialize (protocol version, server name, the session id the server issued);
2. tools/list: reset and the six episode tools, each with an object input schema;
3. a tool before reset is a JSON-RPC error that says so, and the session goes on;
4. reset TASK_ID (a task with two conflicted files); read_file shows the markers;
   write_file writes gold's first file; run_tests grades the tree (markers still left in
   the second file: failed ids, no reward, not done); edit_file replaces the second
   file's whole text by gold's: solved, done, the reward at its maximum;
5. finish after the end is refused; a new reset in the same session, then finish, ends
   that episode unsolved.
Prints one line per check; exits non-zero (with a traceback) on the first failure.
"""

import asyncio
import json
import pathlib
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

TOOLS = ["reset", "write_file", "read_file", "edit_file", "run", "run_tests", "finish"]


def gold_files(dataset, task_id):
    solution = json.loads((dataset / "tasks" / task_id / "solution.json").read_text())
    return {f["path"]: f["gold"] for f in solution["files"]}


async def expect_error(session, name, arguments, code, words):
    try:
        await session.call_tool(name, arguments)
    except McpError as error:
        data = error.error.data or {}
        assert error.error.code == code and all(w in error.error.message for w in words), error.error
        return data.get("code")
    raise AssertionError(f"no error for {name} {arguments}")


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


async def main(url, dataset, task_id):
    gold = gold_files(dataset, task_id)
    async with streamable_http_client(f"{url}/mcp") as (read, write, session_id):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.serverInfo.name == "mergeforge", init
            assert init.capabilities.tools is not None, init.capabilities
            assert session_id(), "the server named the session (Mcp-Session-Id)"
            print(f"initialize: protocol {init.protocolVersion}, session {session_id()}")

            tools = (await session.list_tools()).tools
            assert [t.name for t in tools] == TOOLS, [t.name for t in tools]
            by_name = {t.name: t for t in tools}
            for tool in tools:
                assert tool.inputSchema["type"] == "object" and tool.description, tool
            assert by_name["edit_file"].inputSchema["required"] == ["path", "old_string", "new_string"]
            print(f"tools/list: {', '.join(t.name for t in tools)}")

            code = await expect_error(session, "read_file", {"path": "README.md"}, -32602, ["reset first"])
            assert code == "VALIDATION_ERROR", code
            print("before reset: refused, says reset first")

            reset = await session.call_tool("reset", {"task_id": task_id})
            obs = reset.structuredContent["observation"]
            assert not reset.isError and obs["task"] == {"id": task_id}, obs
            conflicted = sorted(obs["files"])
            assert len(conflicted) == 2 and obs["conflict_count"] >= 2, obs
            first, second = conflicted

            read = await session.call_tool("read_file", {"path": first})
            assert "<<<<<<<" in text_of(read), text_of(read)
            written = await session.call_tool("write_file", {"file": first, "resolution": gold[first]})
            assert not written.structuredContent["done"], text_of(written)

            tests = await session.call_tool("run_tests", {})
            report = text_of(tests)
            reply = tests.structuredContent
            assert "\nFAILED " in report and not reply["done"], report
            assert reply["reward"] == 0.0 and not reply["observation"]["tests_passing"], reply
            failed = sum(1 for line in report.splitlines() if line.startswith("FAILED "))
            print(f"run_tests with markers left: {failed} failed id(s), reward 0, not done")

            current = obs["files"][second]
            edit = await session.call_tool(
                "edit_file", {"path": second, "old_string": current, "new_string": gold[second]}
            )
            reply = edit.structuredContent
            obs = reply["observation"]
            assert reply["done"] and obs["tests_passing"] and obs["conflict_count"] == 0, text_of(edit)
            assert abs(obs["total_reward"] - obs["max_reward"]) < 1e-6, obs
            print(f"gold: {task_id} solved, reward {obs['total_reward']:.2f} = max {obs['max_reward']:.2f}")

            await expect_error(session, "finish", {}, -32602, ["episode is over"])
            await session.call_tool("reset", {"task_id": task_id})
            finish = await session.call_tool("finish", {})
            reply = finish.structuredContent
            assert reply["done"] and not reply["observation"]["tests_passing"], reply
            print("finish: refused after the end; a new episode in the same session ends unsolved")
    print("all checks passed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]))
