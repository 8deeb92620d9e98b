// The OpenCode plugin's hooks, called the way OpenCode calls them, against the REAL bridge.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ContextwardPlugin, LoopBrakeRefusal, contextwardHooks, sinceLastSummary, toBridgeMessages } from "../dist/opencode/src/plugin.js";
import { project } from "./helpers.mjs";

const SESSION = [
  {
    info: { id: "msg_1", role: "user" },
    parts: [{ type: "text", text: "Goal: ship OAuth login. Never change the public API." }],
  },
  {
    info: { id: "msg_2", role: "assistant" },
    parts: [
      { type: "reasoning", text: "thinking" },
      { type: "text", text: "We chose PostgreSQL as the final database." },
      { type: "text", text: "synthetic note", synthetic: true },
      { type: "tool", id: "prt_1", callID: "call_1", tool: "bash", state: { status: "completed", output: "src/a.py:1: OAuth" } },
      { type: "tool", id: "prt_2", callID: "call_2", tool: "bash", state: { status: "error", error: "exit 1" } },
      { type: "tool", id: "prt_3", callID: "call_3", tool: "bash", state: { status: "running" } },
    ],
  },
];

function fakeClient(messages = SESSION, { parents = {} } = {}) {
  const asked = [];
  const client = {
    asked,
    messages,
    session: {
      messages: async (options) => {
        asked.push(options.path.id);
        return { data: client.messages };
      },
      get: async (options) => ({ data: { id: options.path.id, ...(parents[options.path.id] ? { parentID: parents[options.path.id] } : {}) } }),
    },
  };
  return client;
}

function plugin(t, options = {}, messages = SESSION, clientOptions = {}) {
  const { bridge, cwd } = project(t);
  const client = fakeClient(messages, clientOptions);
  const built = contextwardHooks({ client, directory: cwd }, { bridge, ...options });
  t.after(() => built.bridge.close());
  return { ...built, client, project: { bridge, cwd } };
}

test("session messages become the bridge's generic messages", () => {
  assert.deepEqual(toBridgeMessages(SESSION), [
    { id: "msg_1", role: "user", content: "Goal: ship OAuth login. Never change the public API." },
    { id: "msg_2", role: "assistant", content: "We chose PostgreSQL as the final database." },
    { id: "msg_2:call_1", role: "tool", content: "src/a.py:1: OAuth", tool_name: "bash", is_error: false },
    { id: "msg_2:call_2", role: "tool", content: "exit 1", tool_name: "bash", is_error: true },
  ]);
});

test("the state block and the session's brief go into the system prompt", async (t) => {
  const { hooks } = plugin(t);
  const output = { system: ["existing"] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_1", model: {} }, output);
  assert.equal(output.system.length, 3);
  assert.match(output.system[1], /^## Project state/);
  assert.match(output.system[2], /^## contextward brief/);
});

test("compaction gets the guidance and the state block appended to its prompt", async (t) => {
  const { hooks, client } = plugin(t);
  const output = { context: [] };
  await hooks["experimental.session.compacting"]({ sessionID: "ses_1" }, output);
  assert.deepEqual(client.asked, ["ses_1"]);
  assert.equal(output.context.length, 2);
  assert.match(output.context[0], /^contextward guidance/);
  assert.match(output.context[0], /Never change the public API\./);
  assert.match(output.context[1], /^## Project state/);
  assert.equal(output.prompt, undefined, "never replaces OpenCode's own compaction prompt");
});

const KEPT = "Never push directly to the main branch.";
const DROPPED = "Do not edit files under the migrations folder.";
const OWNER = [{ info: { id: "msg_1", role: "user" }, parts: [{ type: "text", text: `We are building the OAuth login. ${KEPT} ${DROPPED}` }] }];

/** The assistant message OpenCode's compaction writes (`summary: true`). */
function summaryMessage(text, { completed = true } = {}) {
  const time = { created: Date.now() + 1 };
  if (completed) time.completed = time.created + 1;
  return { info: { id: "msg_9", role: "assistant", summary: true, time }, parts: completed ? [{ type: "text", text }] : [] };
}

test("after a compaction the summary is checked, and what it dropped is in every system prompt", async (t) => {
  const { hooks, client, bridge, project: where } = plugin(t, { disable: ["brief"] }, [...OWNER]);
  const context = { context: [] };
  await hooks["experimental.session.compacting"]({ sessionID: "ses_1" }, context);
  assert.match(context.context[0], new RegExp(DROPPED));

  // OpenCode's own summary request runs while its summary is still empty: no check yet.
  client.messages = [...OWNER, summaryMessage("", { completed: false })];
  const during = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_1", model: {} }, during);
  assert.equal(during.system.length, 1);

  // The summary keeps one constraint and drops the other.
  client.messages = [...OWNER, summaryMessage(`## Objective\n- OAuth login.\n\n## Important Details\n- ${KEPT}\n`)];
  for (const call of [1, 2]) {
    const output = { system: [] };
    await hooks["experimental.chat.system.transform"]({ sessionID: "ses_1", model: {} }, output);
    assert.equal(output.system.length, 2, `model call ${call}`);
    assert.match(output.system[0], /^## Project state/);
    assert.match(output.system[1], /^contextward restore: the last compaction summary lost/);
    assert.ok(output.system[1].includes(DROPPED) && !output.system[1].includes(KEPT));
  }
  // The check is stored: the bridge's restore for the session reflects it.
  const restore = await bridge.request("restore", { session_id: "ses_1" });
  assert.equal(restore.checked, true);
  // Another session gets nothing.
  const other = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_2", model: {} }, other);
  assert.equal(other.system.length, 1);
  // A later OpenCode process (`opencode run --continue`) finds the block in the store.
  const next = contextwardHooks({ client: fakeClient([]), directory: where.cwd }, { bridge: where.bridge, disable: ["brief"] });
  t.after(() => next.bridge.close());
  const resumed = { system: [] };
  await next.hooks["experimental.chat.system.transform"]({ sessionID: "ses_1", model: {} }, resumed);
  assert.equal(resumed.system.length, 2);
  assert.ok(resumed.system[1].includes(DROPPED));
});

test("session.compacted checks the summary even when no model call follows", async (t) => {
  const { hooks, client, bridge } = plugin(t, { disable: ["state", "brief"] }, [...OWNER]);
  await hooks["experimental.session.compacting"]({ sessionID: "ses_1" }, { context: [] });
  client.messages = [...OWNER, summaryMessage(`- ${KEPT}`)];
  await hooks.event({ event: { type: "session.compacted", properties: { sessionID: "ses_1" } } });
  const restore = await bridge.request("restore", { session_id: "ses_1" });
  assert.equal(restore.checked, true);
  assert.ok(restore.text.includes(DROPPED));
  const output = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_1", model: {} }, output);
  assert.deepEqual(output.system, [restore.text]);
});

test("a compaction inspects only the messages since the last summary", () => {
  const summary = summaryMessage("old summary");
  const later = { info: { id: "msg_10", role: "user" }, parts: [{ type: "text", text: "next" }] };
  assert.deepEqual(sinceLastSummary([...OWNER, summary, later]), [summary, later]);
  assert.deepEqual(sinceLastSummary(OWNER), OWNER);
});

test("the loop brake throws on the third identical failing bash command", async (t) => {
  const { hooks } = plugin(t);
  const input = { tool: "bash", sessionID: "ses_1", callID: "c" };
  await hooks["tool.execute.before"](input, { args: { command: "npm test" } });
  for (const callID of ["c1", "c2"]) {
    await hooks["tool.execute.after"](
      { ...input, callID, args: { command: "npm test" } },
      { title: "", output: "1 failed", metadata: { exit: 1 } },
    );
  }
  await assert.rejects(hooks["tool.execute.before"](input, { args: { command: "npm test" } }), (error) => {
    assert.ok(error instanceof LoopBrakeRefusal);
    assert.match(error.message, /npm test/);
    return true;
  });
  // Other tools and other commands pass.
  await hooks["tool.execute.before"]({ ...input, tool: "read" }, { args: { filePath: "a" } });
  await hooks["tool.execute.before"](input, { args: { command: "pytest -q" } });
});

test("session.idle and session.created are recorded", async (t) => {
  const { hooks, bridge } = plugin(t);
  await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_9" } } } });
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_9" } } });
  await hooks.event({ event: { type: "message.updated", properties: {} } });
  const again = await bridge.request("record_event", { event: "tool_call", session_id: "ses_9", key: "k" });
  assert.deepEqual(again, { recorded: true });
});

test("every tool call is recorded once, so the state block counts them", async (t) => {
  const { hooks, bridge } = plugin(t);
  const input = { sessionID: "ses_t", args: { filePath: "a.ts" } };
  for (const callID of ["r1", "r2", "r2"]) {
    await hooks["tool.execute.after"]({ ...input, tool: "read", callID }, { title: "", output: "", metadata: {} });
  }
  const { text } = await bridge.request("state_block", { session_id: "ses_t" });
  assert.match(text, /2 tool calls/);
});

test("dispose lets a session.idle record in flight finish before closing the bridge", async (t) => {
  const original = console.error;
  const errors = [];
  console.error = (line) => errors.push(String(line));
  t.after(() => (console.error = original));
  const { hooks, bridge } = plugin(t);
  // `opencode run` disposes the plugin while the last idle event is still being recorded.
  const idle = hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_d" } } });
  await hooks.dispose();
  await idle;
  assert.deepEqual(errors, []);
  const ended = await bridge.request("record_event", { event: "session_idle", session_id: "ses_d" });
  assert.equal(ended.recorded, true);
});

test("a missing bridge fails open and never blocks a tool", async (t) => {
  const original = console.error;
  const errors = [];
  console.error = (line) => errors.push(String(line));
  const { hooks, bridge } = contextwardHooks(
    { client: fakeClient(), directory: process.cwd() },
    { bridge: { command: ["/nonexistent/contextward"] } },
  );
  t.after(() => bridge.close());
  try {
    const system = { system: [] };
    await hooks["experimental.chat.system.transform"]({ sessionID: "s", model: {} }, system);
    const compacting = { context: [] };
    await hooks["experimental.session.compacting"]({ sessionID: "s" }, compacting);
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, { args: { command: "ls" } });
    assert.deepEqual(system.system, []);
    assert.deepEqual(compacting.context, []);
  } finally {
    console.error = original;
  }
  assert.ok(errors.length >= 3 && errors.every((line) => line.startsWith("contextward: ")));
});

test("parts can be turned off, and the plugin export builds the hooks", async (t) => {
  const { hooks } = plugin(t, { disable: ["state", "brief", "prompts", "compaction", "loops", "lifecycle"] });
  assert.deepEqual(Object.keys(hooks), ["dispose"]);
  const { cwd } = project(t);
  const all = await ContextwardPlugin({ client: fakeClient(), directory: cwd });
  assert.deepEqual(Object.keys(all).sort(), [
    "chat.message",
    "dispose",
    "event",
    "experimental.chat.system.transform",
    "experimental.session.compacting",
    "tool.execute.after",
    "tool.execute.before",
  ]);
  await all.dispose();
});

test("the entry point exports only the plugin (OpenCode treats every export as one)", async () => {
  const entry = await import("../dist/opencode/src/index.js");
  assert.deepEqual(Object.keys(entry), ["ContextwardPlugin"]);
});

/** What `chat.message` gets for a prompt the owner typed. */
function typed(sessionID, id, text) {
  return [
    { sessionID, messageID: id },
    { message: { id, sessionID, role: "user", time: { created: Date.now() }, agent: "build", model: { providerID: "p", modelID: "m" } }, parts: [{ id: `${id}-p`, sessionID, messageID: id, type: "text", text }] },
  ];
}

test("a new session's system prompt carries the brief: the last session's rules, and what its summary lost", async (t) => {
  // walk13 #2 and #9: OpenCode recorded no prompt and asked no brief, so a new session
  // started with none of the last session's goal, rules or lost items.
  const { hooks, client, project: where } = plugin(t, {}, [...OWNER], { parents: { ses_child: "ses_1" } });
  const rule = "Never push directly to main.";
  await hooks["chat.message"](...typed("ses_1", "msg_1", `We are building the OAuth login. ${rule}`));
  const first = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_1", model: {} }, first);
  assert.ok(!first.system.join("\n").includes(rule), "the brief never echoes the prompt just typed");
  // A subagent's session: its prompt is the parent agent's, not the owner's.
  await hooks["chat.message"](...typed("ses_child", "msg_c", "Pushing directly to main is fine."));
  // The compaction drops one of the owner's constraints.
  await hooks["experimental.session.compacting"]({ sessionID: "ses_1" }, { context: [] });
  client.messages = [...OWNER, summaryMessage(`## Objective\n- OAuth login.\n\n## Important Details\n- ${KEPT}\n`)];
  await hooks.event({ event: { type: "session.compacted", properties: { sessionID: "ses_1" } } });

  // A session beside it in the same OpenCode: ses_1 has not ended, so what its summary
  // lost stays with it.
  await hooks["chat.message"](...typed("ses_3", "msg_8", "Meanwhile, the docs."));
  const beside = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_3", model: {} }, beside);
  assert.ok(!beside.system.join("\n").includes(DROPPED), "a running session's losses stay its own");
  // OpenCode exits (the plugin is disposed: ses_1 ends), and is started again.
  await hooks.dispose();
  const later = contextwardHooks({ client: fakeClient([...OWNER]), directory: where.cwd }, { bridge: where.bridge });
  t.after(() => later.bridge.close());
  await later.hooks["chat.message"](...typed("ses_2", "msg_9", "Now the billing export."));
  const next = { system: [] };
  await later.hooks["experimental.chat.system.transform"]({ sessionID: "ses_2", model: {} }, next);
  assert.equal(next.system.length, 2);
  const brief = next.system[1];
  assert.match(brief, /^## contextward brief/);
  assert.match(brief, /owner said:/);
  assert.ok(brief.includes(rule), "the owner's rule of the last session");
  assert.ok(brief.includes(DROPPED), "what the last session's summary lost");
  assert.ok(!brief.includes("Pushing directly to main is fine"), "a subagent's prompt is not the owner's");
  assert.ok(!brief.includes("billing export"), "nor this session's prompt, echoed back");
  // Every model call of the session gets the same brief; it is asked once.
  const again = { system: [] };
  await later.hooks["experimental.chat.system.transform"]({ sessionID: "ses_2", model: {} }, again);
  assert.deepEqual(again.system, next.system);
});

test("a compacted session met by a later process gets its restore block once, not again in the brief", async (t) => {
  const { hooks, client, project: where } = plugin(t, { disable: ["brief"] }, [...OWNER]);
  await hooks["experimental.session.compacting"]({ sessionID: "ses_1" }, { context: [] });
  client.messages = [...OWNER, summaryMessage(`- ${KEPT}`)];
  await hooks.event({ event: { type: "session.compacted", properties: { sessionID: "ses_1" } } });
  const later = contextwardHooks({ client: fakeClient([]), directory: where.cwd }, { bridge: where.bridge });
  t.after(() => later.bridge.close());
  const output = { system: [] };
  await later.hooks["experimental.chat.system.transform"]({ sessionID: "ses_1", model: {} }, output);
  assert.equal(output.system.length, 3);
  assert.match(output.system[1], /^## contextward brief/);
  assert.ok(!output.system[1].includes(DROPPED), "the brief leaves it to the restore block");
  assert.match(output.system[2], /^contextward restore:/);
  assert.ok(output.system[2].includes(DROPPED));
});

test("with prompts not recorded, the owner's session still ends on dispose and carries what its summary lost", async (t) => {
  const { hooks, client, project: where } = plugin(t, { disable: ["prompts"] }, [...OWNER]);
  await hooks["chat.message"](...typed("ses_p", "msg_1", "We are building the OAuth login."));
  await hooks["experimental.session.compacting"]({ sessionID: "ses_p" }, { context: [] });
  client.messages = [...OWNER, summaryMessage(`## Objective\n- OAuth login.\n\n## Important Details\n- ${KEPT}\n`)];
  await hooks.event({ event: { type: "session.compacted", properties: { sessionID: "ses_p" } } });
  await hooks.dispose();
  const later = contextwardHooks({ client: fakeClient([...OWNER]), directory: where.cwd }, { bridge: where.bridge, disable: ["prompts"] });
  t.after(() => later.bridge.close());
  await later.hooks["chat.message"](...typed("ses_q", "msg_9", "Now the billing export."));
  const next = { system: [] };
  await later.hooks["experimental.chat.system.transform"]({ sessionID: "ses_q", model: {} }, next);
  assert.ok(next.system.join("\n").includes(DROPPED), "what the ended session's summary lost");
});
