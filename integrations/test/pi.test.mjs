// The pi extension, driven the way pi drives it (a stand-in for pi's ExtensionAPI and
// context), against the REAL Python bridge.
import assert from "node:assert/strict";
import { test } from "node:test";

import { registerContextward, toBridgeMessages } from "../dist/pi/src/extension.js";
import { project } from "./helpers.mjs";

const PI_MESSAGES = [
  { role: "user", content: "Goal: ship OAuth login. Never change the public API.", timestamp: 1 },
  { role: "assistant", content: [{ type: "thinking", thinking: "hmm" }, { type: "text", text: "We chose PostgreSQL as the final database." }], timestamp: 2 },
  { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text: "src/a.py:1: OAuth" }], isError: false, timestamp: 3 },
  { role: "custom", customType: "other", content: "not conversation", display: false, timestamp: 4 },
  { role: "bashExecution", command: "npm test", output: "1 failed", exitCode: 1, cancelled: false, truncated: false, timestamp: 5 },
];

/** pi as the extension sees it: handlers registered by event name. */
function fakePi() {
  const handlers = new Map();
  return {
    handlers,
    on(event, handler) {
      handlers.set(event, handler);
    },
    getThinkingLevel: () => "medium",
    async fire(event, payload, ctx) {
      const handler = handlers.get(event);
      assert.ok(handler, `no handler for ${event}`);
      return handler({ type: event, ...payload }, ctx);
    },
  };
}

function fakeContext({ hasUI = false, confirm = async () => true, session = "pi-session-1" } = {}) {
  return {
    hasUI,
    cwd: process.cwd(),
    model: { id: "test-model", provider: "test" },
    modelRegistry: { getApiKeyAndHeaders: async () => ({ ok: true, apiKey: "test-key", headers: { "x-test": "1" } }) },
    sessionManager: { getSessionId: () => session },
    ui: { confirm, notify: () => undefined },
  };
}

function fakeFunctions() {
  const calls = { compact: [], complete: [] };
  return {
    calls,
    fns: {
      compact: async (preparation, model, apiKey, headers, customInstructions, signal, thinkingLevel) => {
        calls.compact.push({ preparation, model, apiKey, headers, customInstructions, thinkingLevel });
        return { summary: "## Goal\nship OAuth", firstKeptEntryId: preparation.firstKeptEntryId, tokensBefore: preparation.tokensBefore };
      },
      completeSimple: async (model, context, options) => {
        calls.complete.push({ model, context, options });
        const text = JSON.stringify({ candidates: [{ kind: "decision", content: "We chose PostgreSQL", source: "pi2" }] });
        return { role: "assistant", content: [{ type: "text", text }], stopReason: "stop", timestamp: 0 };
      },
    },
  };
}

function compactEvent(customInstructions) {
  return {
    preparation: { firstKeptEntryId: "e9", messagesToSummarize: PI_MESSAGES, turnPrefixMessages: [], isSplitTurn: false, tokensBefore: 1234, fileOps: {}, settings: {} },
    branchEntries: [],
    customInstructions,
    signal: new AbortController().signal,
  };
}

test("pi messages become the bridge's generic messages", () => {
  assert.deepEqual(toBridgeMessages(PI_MESSAGES), [
    { id: "pi1", role: "user", content: "Goal: ship OAuth login. Never change the public API." },
    { id: "pi2", role: "assistant", content: "We chose PostgreSQL as the final database." },
    { id: "pi3", role: "tool", content: "src/a.py:1: OAuth", tool_name: "bash", is_error: false },
    { id: "pi5", role: "tool", content: "1 failed", tool_name: "bash", is_error: true },
  ]);
});

test("session_before_compact hands guidance to pi's own compact(), with the host's model as provider", async (t) => {
  const pi = fakePi();
  const { calls, fns } = fakeFunctions();
  const client = registerContextward(pi, fns, { bridge: project(t).bridge });
  t.after(() => client.close());
  const result = await pi.fire("session_before_compact", compactEvent("Focus on auth."), fakeContext());
  assert.deepEqual(result.compaction, { summary: "## Goal\nship OAuth", firstKeptEntryId: "e9", tokensBefore: 1234 });
  assert.equal(calls.complete.length, 1, "the host's model answered the provider request");
  assert.equal(calls.complete[0].options.apiKey, "test-key");
  assert.match(calls.complete[0].context.messages[0].content, /\[pi2\] assistant: We chose PostgreSQL/);
  assert.equal(calls.compact.length, 1);
  const { customInstructions, apiKey, headers, thinkingLevel } = calls.compact[0];
  assert.ok(customInstructions.startsWith("Focus on auth.\n\ncontextward guidance"));
  assert.match(customInstructions, /Never change the public API\./);
  assert.equal(apiKey, "test-key");
  assert.deepEqual(headers, { "x-test": "1" });
  assert.equal(thinkingLevel, "medium");
});

test("the compaction inspects the messages as the session's, so a later segment has no goal of its own", async (t) => {
  const pi = fakePi();
  const { fns } = fakeFunctions();
  const client = registerContextward(pi, fns, { bridge: project(t).bridge });
  t.after(() => client.close());
  const seen = [];
  const send = client.request.bind(client);
  client.request = (operation, body, options) => {
    seen.push([operation, body]);
    return send(operation, body, options);
  };
  await pi.fire("session_before_compact", compactEvent("Focus on auth."), fakeContext());
  const inspect = seen.find(([operation]) => operation === "guidance");
  assert.ok(inspect, "the messages were inspected");
  assert.equal(inspect[1].session_id, "pi-session-1");
});

test("uncertain items are put to the owner when pi has a UI", async (t) => {
  const pi = fakePi();
  const { calls, fns } = fakeFunctions();
  const client = registerContextward(pi, fns, { bridge: project(t).bridge, disable: ["provider"] });
  t.after(() => client.close());
  const asked = [];
  const ctx = fakeContext({ hasUI: true, confirm: async (title, message) => (asked.push(message), false) });
  const inspection = await client.request("inspect", { messages: toBridgeMessages(PI_MESSAGES) });
  const uncertain = inspection.candidates.filter((c) => c.action === "review");
  await pi.fire("session_before_compact", compactEvent(undefined), ctx);
  assert.equal(asked.length, Math.min(5, uncertain.length));
  assert.equal(calls.complete.length, 0, "provider mode was turned off");
  assert.equal(calls.compact.length, 1);
});

test("the loop brake blocks the third identical failing bash command", async (t) => {
  const pi = fakePi();
  const { fns } = fakeFunctions();
  const client = registerContextward(pi, fns, { bridge: project(t).bridge });
  t.after(() => client.close());
  const ctx = fakeContext();
  const call = { toolName: "bash", toolCallId: "c", input: { command: "npm test" } };
  assert.equal(await pi.fire("tool_call", call, ctx), undefined);
  for (const id of ["r1", "r2"]) {
    await pi.fire("tool_result", { toolName: "bash", toolCallId: id, input: { command: "npm test" }, content: [], isError: true }, ctx);
  }
  const verdict = await pi.fire("tool_call", call, ctx);
  assert.equal(verdict.block, true);
  assert.match(verdict.reason, /npm test/);
  assert.equal(await pi.fire("tool_call", { toolName: "read", toolCallId: "x", input: { path: "a" } }, ctx), undefined);
});

test("the brief is injected before the first prompt, and again only after a compaction", async (t) => {
  const pi = fakePi();
  const { fns } = fakeFunctions();
  const client = registerContextward(pi, fns, { bridge: project(t).bridge });
  t.after(() => client.close());
  const ctx = fakeContext();
  await pi.fire("session_start", { reason: "startup" }, ctx);
  const first = await pi.fire("before_agent_start", { prompt: "hi", systemPrompt: "" }, ctx);
  assert.equal(first.message.customType, "contextward");
  assert.match(first.message.content, /^## contextward brief/);
  assert.equal(first.message.display, false);
  assert.equal(await pi.fire("before_agent_start", { prompt: "again", systemPrompt: "" }, ctx), undefined);
  await pi.fire("session_compact", { compactionEntry: {}, fromExtension: true }, ctx);
  // The compaction summarised the first brief away, so it comes back once.
  const after = await pi.fire("before_agent_start", { prompt: "after", systemPrompt: "" }, ctx);
  assert.equal(after.message.content, first.message.content);
  assert.equal(await pi.fire("before_agent_start", { prompt: "next", systemPrompt: "" }, ctx), undefined);
  await pi.fire("session_shutdown", { reason: "quit" }, ctx);
});

const KEPT = "Never push directly to the main branch.";
const DROPPED = "Do not edit files under the migrations folder.";

test("after a compaction pi's summary is checked, and what it dropped comes back once", async (t) => {
  const pi = fakePi();
  const { fns } = fakeFunctions();
  // pi's summarizer keeps one of the owner's constraints and drops the other.
  fns.compact = async (preparation) => ({ summary: `## Goal\nOAuth login.\n\n## Constraints & Preferences\n- ${KEPT}\n`, firstKeptEntryId: preparation.firstKeptEntryId, tokensBefore: 1 });
  const { bridge } = project(t);
  const client = registerContextward(pi, fns, { bridge, disable: ["provider"] });
  t.after(() => client.close());
  const ctx = fakeContext();
  await pi.fire("before_agent_start", { prompt: "hi", systemPrompt: "" }, ctx);
  const event = compactEvent(undefined);
  event.preparation.messagesToSummarize = [{ role: "user", content: `We are building the OAuth login. ${KEPT} ${DROPPED}`, timestamp: 1 }];
  const { compaction } = await pi.fire("session_before_compact", event, ctx);
  await pi.fire("session_compact", { compactionEntry: { type: "compaction", summary: compaction.summary }, fromExtension: true }, ctx);

  // The report is stored against the snapshot this compaction took.
  const report = await client.request("check_summary", { summary: compaction.summary, session_id: "pi-session-1" });
  assert.equal(report.checked, true);
  assert.ok(report.findings.some((f) => f.status === "lost"));

  // An overflow retry (no before_agent_start) gets the block appended to its context.
  const prompt = { role: "user", content: "go on", timestamp: 2 };
  const retried = await pi.fire("context", { messages: [{ role: "compactionSummary", summary: "s", tokensBefore: 1, timestamp: 1 }, prompt] }, ctx);
  assert.equal(retried.messages.length, 3);
  assert.equal(retried.messages[1].customType, "contextward", "just before the owner's prompt");
  assert.match(retried.messages[1].content, /^contextward restore:/);
  assert.deepEqual(retried.messages[2], prompt);

  const after = await pi.fire("before_agent_start", { prompt: "what next?", systemPrompt: "" }, ctx);
  const content = after.message.content;
  assert.match(content, /^contextward restore: the last compaction summary lost or changed/);
  assert.ok(content.includes(DROPPED), "the dropped constraint comes back verbatim");
  assert.ok(!content.includes(KEPT), "a preserved constraint is not injected again");
  assert.match(content, /\n\n## contextward brief/);
  assert.ok(!content.includes("still in force"), "the brief leaves the restore to the block");
  // Delivered for good: neither the next prompt nor the next model call gets it again.
  assert.equal(await pi.fire("before_agent_start", { prompt: "next", systemPrompt: "" }, ctx), undefined);
  assert.equal(await pi.fire("context", { messages: [] }, ctx), undefined);
});

test("a compaction that pi ran natively (contextward took no snapshot) restores nothing", async (t) => {
  const pi = fakePi();
  const { fns } = fakeFunctions();
  const client = registerContextward(pi, fns, { bridge: project(t).bridge });
  t.after(() => client.close());
  const ctx = fakeContext();
  await pi.fire("before_agent_start", { prompt: "hi", systemPrompt: "" }, ctx);
  await pi.fire("session_compact", { compactionEntry: { type: "compaction", summary: "## Goal\nx" }, fromExtension: false }, ctx);
  const after = await pi.fire("before_agent_start", { prompt: "next", systemPrompt: "" }, ctx);
  assert.match(after.message.content, /^## contextward brief/);
});

test("a missing bridge fails open: pi compacts and runs tools as if we were not there", async (t) => {
  const pi = fakePi();
  const { calls, fns } = fakeFunctions();
  const client = registerContextward(pi, fns, { bridge: { command: ["/nonexistent/contextward"], log: () => undefined } });
  t.after(() => client.close());
  const errors = [];
  const original = console.error;
  console.error = (line) => errors.push(String(line));
  try {
    const ctx = fakeContext();
    assert.equal(await pi.fire("session_before_compact", compactEvent(""), ctx), undefined);
    assert.equal(await pi.fire("tool_call", { toolName: "bash", toolCallId: "c", input: { command: "ls" } }, ctx), undefined);
    assert.equal(await pi.fire("before_agent_start", { prompt: "hi", systemPrompt: "" }, ctx), undefined);
    await pi.fire("session_compact", { compactionEntry: { type: "compaction", summary: "## Goal\nx" }, fromExtension: false }, ctx);
    assert.equal(await pi.fire("before_agent_start", { prompt: "again", systemPrompt: "" }, ctx), undefined);
    assert.equal(await pi.fire("context", { messages: [] }, ctx), undefined);
  } finally {
    console.error = original;
  }
  assert.equal(calls.compact.length, 0);
  assert.ok(errors.length >= 3 && errors.every((line) => line.startsWith("contextward: ")));
});

test("parts can be turned off", async (t) => {
  const pi = fakePi();
  const { fns } = fakeFunctions();
  const client = registerContextward(pi, fns, { bridge: project(t).bridge, disable: ["compaction", "loops", "brief", "lifecycle", "prompts"] });
  t.after(() => client.close());
  assert.deepEqual([...pi.handlers.keys()], []);
});

test("the entry point loads with pi's real package and registers every handler", async (t) => {
  const { default: extension } = await import("../dist/pi/src/index.js");
  const pi = fakePi();
  const previous = process.env.CONTEXTWARD_BRIDGE;
  process.env.CONTEXTWARD_BRIDGE = "/nonexistent/contextward bridge --stdio";
  t.after(() => (previous === undefined ? delete process.env.CONTEXTWARD_BRIDGE : (process.env.CONTEXTWARD_BRIDGE = previous)));
  extension(pi);
  assert.deepEqual([...pi.handlers.keys()].sort(), [
    "before_agent_start",
    "context",
    "input",
    "session_before_compact",
    "session_compact",
    "session_shutdown",
    "session_start",
    "tool_call",
    "tool_result",
  ]);
});

test("a session started with /new, /resume or /fork in the same pi process gets its own brief", async (t) => {
  // walk13 #3: the extension kept the first session's digest, so the next got nothing.
  const pi = fakePi();
  const { fns } = fakeFunctions();
  const client = registerContextward(pi, fns, { bridge: project(t).bridge });
  t.after(() => client.close());
  const first = fakeContext({ session: "pi-a" });
  await pi.fire("session_start", { reason: "startup" }, first);
  const a = await pi.fire("before_agent_start", { prompt: "hi", systemPrompt: "" }, first);
  assert.match(a.message.content, /^## contextward brief/);
  await pi.fire("session_shutdown", { reason: "new" }, first);
  const next = fakeContext({ session: "pi-b" });
  await pi.fire("session_start", { reason: "new" }, next);
  const b = await pi.fire("before_agent_start", { prompt: "hello", systemPrompt: "" }, next);
  assert.ok(b, "the new session gets a brief");
  assert.match(b.message.content, /^## contextward brief/);
  assert.equal(await pi.fire("before_agent_start", { prompt: "again", systemPrompt: "" }, next), undefined);
});

test("the owner's prompts are recorded, and reach the next session's brief as the owner's words", async (t) => {
  // walk13 #2: neither shim recorded prompts, so "owner said" of earlier sessions was empty.
  const pi = fakePi();
  const { fns } = fakeFunctions();
  const { bridge } = project(t);
  const client = registerContextward(pi, fns, { bridge });
  t.after(() => client.close());
  const rule = "Never push directly to main.";
  const one = fakeContext({ session: "pi-1" });
  await pi.fire("session_start", { reason: "startup" }, one);
  await pi.fire("input", { text: `Add CSV export. ${rule}`, source: "interactive" }, one);
  const first = await pi.fire("before_agent_start", { prompt: `Add CSV export. ${rule}`, systemPrompt: "" }, one);
  assert.ok(!first.message.content.includes(rule), "the brief never echoes the prompt just typed");
  // Another extension's message is not the owner's.
  await pi.fire("input", { text: "Pushing to main is fine.", source: "extension" }, one);
  await pi.fire("before_agent_start", { prompt: "Pushing to main is fine.", systemPrompt: "" }, one);
  await pi.fire("session_shutdown", { reason: "new" }, one);
  const two = fakeContext({ session: "pi-2" });
  await pi.fire("session_start", { reason: "new" }, two);
  const brief = await pi.fire("before_agent_start", { prompt: "next task", systemPrompt: "" }, two);
  assert.match(brief.message.content, /owner said:/);
  assert.ok(brief.message.content.includes(rule), "the owner's rule of the earlier session");
  assert.ok(!brief.message.content.includes("Pushing to main is fine"));
});

test("a risky command is put to the owner when pi has a UI, and runs only with their yes", async (t) => {
  // walk13 #7: the agent repeating the command was taken as the owner's consent.
  const pi = fakePi();
  const { fns } = fakeFunctions();
  const client = registerContextward(pi, fns, { bridge: project(t).bridge });
  t.after(() => client.close());
  const asked = [];
  let answer = false;
  const ctx = fakeContext({ hasUI: true, confirm: async (title, message) => (asked.push(message), answer) });
  const call = { toolName: "bash", toolCallId: "c", input: { command: "git push --force origin main" } };
  const refused = await pi.fire("tool_call", call, ctx);
  assert.equal(refused.block, true);
  assert.match(refused.reason, /did not approve/);
  // The same command again: asked again, never let through on repetition alone.
  assert.equal((await pi.fire("tool_call", call, ctx)).block, true);
  assert.equal(asked.length, 2);
  assert.match(asked[0], /risky command/);
  assert.ok(asked[0].includes("git push --force origin main"));
  answer = true;
  assert.equal(await pi.fire("tool_call", call, ctx), undefined);
  assert.equal(await pi.fire("tool_call", { ...call, input: { command: "ls" } }, ctx), undefined);
  assert.equal(asked.length, 3, "a benign command is not asked about");
  // Without a UI (print or RPC mode) the agent is refused once and told to ask.
  const headless = fakeContext({ session: "pi-headless" });
  const once = await pi.fire("tool_call", call, headless);
  assert.match(once.reason, /Ask the owner first/);
});

test("every pi tool call is recorded, so the state block and the auto-log count them", async (t) => {
  // walk13 #8: pi sessions were logged as "0 tool calls".
  const pi = fakePi();
  const { fns } = fakeFunctions();
  const client = registerContextward(pi, fns, { bridge: project(t).bridge });
  t.after(() => client.close());
  const ctx = fakeContext({ session: "pi-tools" });
  await pi.fire("session_start", { reason: "startup" }, ctx);
  for (const [id, toolName, input] of [["c1", "read", { path: "a" }], ["c2", "bash", { command: "ls" }], ["c2", "bash", { command: "ls" }]]) {
    await pi.fire("tool_result", { toolName, toolCallId: id, input, content: [], isError: false }, ctx);
  }
  const { text } = await client.request("state_block", { session_id: "pi-tools" });
  assert.match(text, /2 tool calls/);
});

test("a long session is still guided: the reply stays bounded however many messages", async (t) => {
  // walk13 #4: `inspect` answered result_too_large from about 1.6 MB of messages, and the
  // extension then let pi compact natively: nothing was snapshotted, checked or restored.
  const pi = fakePi();
  const { calls, fns } = fakeFunctions();
  const client = registerContextward(pi, fns, { bridge: project(t).bridge, disable: ["provider"] });
  t.after(() => client.close());
  const messages = [{ role: "user", content: "We're adding CSV export to the reports API. Never push directly to main.", timestamp: 0 }];
  for (let i = 1; i <= 3500; i++) {
    messages.push({ role: "user", content: `Now look at report module ${i} and make sure the column order matches the spec.`, timestamp: 3 * i });
    messages.push({ role: "assistant", content: [{ type: "text", text: `I checked module_${i}.py; the column order was wrong, so I fixed it and ran the tests.` }], timestamp: 3 * i + 1 });
    messages.push({ role: "bashExecution", command: `pytest tests/test_module_${i}.py -q`, output: `....F\nFAILED tests/test_module_${i}.py::test_cols - AssertionError: expected ['id','name'] got ['name','id']\n`, exitCode: i % 2, cancelled: false, truncated: false, timestamp: 3 * i + 2 });
  }
  const event = compactEvent(undefined);
  event.preparation.messagesToSummarize = messages;
  const errors = [];
  const original = console.error;
  console.error = (line) => errors.push(String(line));
  let result;
  try {
    result = await pi.fire("session_before_compact", event, fakeContext({ session: "pi-long" }));
  } finally {
    console.error = original;
  }
  assert.deepEqual(errors, []);
  assert.ok(result?.compaction, "the compaction was guided");
  assert.equal(calls.compact.length, 1);
  assert.match(calls.compact[0].customInstructions, /Never push directly to main\./);
  const restore = await client.request("restore", { session_id: "pi-long" });
  assert.ok(restore.snapshot_seq >= 1, "the snapshot was stored");
});
