// The shared bridge client against the real Python bridge.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { BridgeClient, BridgeFailure, MAX_FRAME_BYTES, bridgeCommand, failOpen, fitToFrame } from "../dist/bridge-client/src/client.js";
import { MESSAGES, project } from "./helpers.mjs";

test("ping and version round trip through the real bridge", async (t) => {
  const client = new BridgeClient(project(t).bridge);
  t.after(() => client.close());
  assert.deepEqual(await client.request("ping"), { pong: true, protocol_version: 1 });
  const version = await client.request("version");
  assert.equal(version.protocol_version, 1);
  assert.ok(version.operations.includes("loop_check"));
});

test("a failed operation rejects with the bridge's code", async (t) => {
  const client = new BridgeClient(project(t).bridge);
  t.after(() => client.close());
  await assert.rejects(client.request("no_such_operation"), (error) => error instanceof BridgeFailure && error.code === "unknown_operation");
  await assert.rejects(client.request("guidance", {}), (error) => error.code === "invalid_request");
  // The bridge is still there after failures.
  assert.equal((await client.request("ping")).pong, true);
});

test("concurrent requests are matched to their answers by request id", async (t) => {
  const client = new BridgeClient(project(t).bridge);
  t.after(() => client.close());
  const answers = await Promise.all([
    client.request("inspect", { messages: MESSAGES }),
    client.request("ping"),
    client.request("loop_check", { command: "npm test" }),
  ]);
  assert.equal(answers[0].schema_version, 1);
  assert.equal(answers[1].pong, true);
  assert.equal(answers[2].action, "allow");
});

test("provider requests are answered by the host's model", async (t) => {
  const asked = [];
  const client = new BridgeClient({
    ...project(t).bridge,
    provider: async (request) => {
      asked.push(request);
      return { text: JSON.stringify({ candidates: [{ kind: "decision", content: "We chose PostgreSQL", source: "a1" }] }) };
    },
  });
  t.after(() => client.close());
  const result = await client.request("inspect", { messages: MESSAGES }, { provider: true });
  assert.equal(result.mode, "provider");
  assert.equal(asked.length, 1);
  assert.equal(asked[0].task, "complete");
  assert.match(asked[0].input.prompt, /\[a1\] assistant: We chose PostgreSQL/);
});

test("a host model that fails makes the bridge fall back to rules", async (t) => {
  const client = new BridgeClient({
    ...project(t).bridge,
    provider: async () => {
      throw new Error("model offline");
    },
  });
  t.after(() => client.close());
  const result = await client.request("inspect", { messages: MESSAGES }, { provider: true });
  assert.equal(result.mode, "rules");
});

test("a bridge that never answers times out", async (t) => {
  const client = new BridgeClient({ command: [process.execPath, "-e", "setInterval(() => {}, 1000)"], timeoutMs: 200 });
  t.after(() => client.close());
  await assert.rejects(client.request("ping"), (error) => error.code === "timeout");
});

test("a bridge that hangs is stopped; after two hangs in a row requests fail at once", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "cw-hang-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const pids = join(dir, "pids");
  const script = `require("fs").appendFileSync(${JSON.stringify(pids)}, process.pid + "\\n"); setInterval(() => {}, 1000)`;
  const lines = [];
  const client = new BridgeClient({ command: [process.execPath, "-e", script], timeoutMs: 200, log: (line) => lines.push(line) });
  t.after(() => client.close());
  await assert.rejects(client.request("ping"), (error) => error.code === "timeout");
  await assert.rejects(client.request("ping"), (error) => error.code === "timeout");
  const started = readFileSync(pids, "utf8").trim().split("\n").map(Number);
  assert.equal(started.length, 2, "each hang is stopped and the next request starts a new bridge");
  for (const pid of started) await gone(pid);
  await assert.rejects(client.request("ping"), (error) => error.code === "bridge_unavailable" && /trying again in \d+ s/.test(error.message));
  assert.equal(readFileSync(pids, "utf8").trim().split("\n").length, 2, "no third bridge while paused");
  assert.ok(lines.some((line) => line.includes("did not answer in time and was stopped (2 in a row)")));
});

test("a bridge that prints stray frames but never answers is still paused after two hangs", async (t) => {
  // walk13 #12: any frame reset the count, so such a bridge cost every event its timeout.
  const script = `console.log("not json"); console.log(JSON.stringify({protocol_version: 1, type: "result", request_id: "r999", ok: true})); setInterval(() => {}, 1000)`;
  const client = new BridgeClient({ command: [process.execPath, "-e", script], timeoutMs: 300, log: () => undefined });
  t.after(() => client.close());
  await assert.rejects(client.request("ping"), (error) => error.code === "timeout");
  await assert.rejects(client.request("ping"), (error) => error.code === "timeout");
  await assert.rejects(client.request("ping"), (error) => error.code === "bridge_unavailable");
});

test("a timeout past the bridge's maximum is sent as the maximum", async (t) => {
  const client = new BridgeClient(project(t).bridge);
  t.after(() => client.close());
  assert.equal((await client.request("ping", {}, { timeoutMs: 700_000 })).pong, true);
});

async function gone(pid) {
  for (let n = 0; n < 100; n++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`bridge process ${pid} is still running`);
}

test("a missing bridge fails open", async (t) => {
  const lines = [];
  const client = new BridgeClient({ command: ["/nonexistent/contextward-bridge"], log: (line) => lines.push(line) });
  t.after(() => client.close());
  await assert.rejects(client.request("ping"), (error) => error.code === "bridge_unavailable");
  const value = await failOpen("ping", () => client.request("ping"), "fallback", (line) => lines.push(line));
  assert.equal(value, "fallback");
  assert.ok(lines.some((line) => line.includes("skipped (bridge_unavailable)")));
});

test("a bridge that exits rejects what was pending, and the next request starts a new one", async (t) => {
  const { bridge } = project(t);
  const client = new BridgeClient(bridge);
  t.after(() => client.close());
  assert.equal((await client.request("ping")).pong, true);
  client.close();
  assert.equal((await client.request("ping")).pong, true);
});

test("a long session is fitted to one frame: the opening and the newest messages, each bounded", () => {
  const opening = { id: "m1", role: "user", content: "Goal: ship OAuth. Never push to main." };
  const middle = Array.from({ length: 60 }, (_, n) => ({ id: `m${n + 2}`, role: "tool", content: "x".repeat(60_000) }));
  const huge = { id: "m99", role: "tool", content: "start " + "y".repeat(500_000) + " end" };
  const newest = { id: "m100", role: "user", content: "Now fix the callback." };
  const fitted = fitToFrame([opening, ...middle, huge, newest]);
  const bytes = Buffer.byteLength(JSON.stringify(fitted), "utf8");
  assert.ok(bytes < MAX_FRAME_BYTES - 200 * 1024, `${bytes} bytes`);
  assert.equal(fitted[0], opening);
  assert.deepEqual(fitted.slice(-1), [newest]);
  const cut = fitted.find((m) => m.id === "m99");
  assert.ok(cut.content.startsWith("start ") && cut.content.endsWith(" end") && cut.content.length < 101_000);
  assert.ok(fitted.length < 63, "the oldest messages after the opening were left out");
  const small = [opening, newest];
  assert.deepEqual(fitToFrame(small), small);
});

test("CONTEXTWARD_BRIDGE keeps a quoted path with spaces in one word", () => {
  assert.deepEqual(bridgeCommand({ CONTEXTWARD_BRIDGE: '"/opt/My Tools/contextward" bridge --stdio' }), [
    "/opt/My Tools/contextward",
    "bridge",
    "--stdio",
  ]);
  assert.deepEqual(bridgeCommand({ CONTEXTWARD_BRIDGE: "cw bridge  --stdio" }), ["cw", "bridge", "--stdio"]);
  assert.deepEqual(bridgeCommand({ CONTEXTWARD_BIN: "/My Tools/cw" }), ["/My Tools/cw", "bridge", "--stdio"]);
});
