/**
 * contextward for OpenCode: translate OpenCode's hooks into bridge requests
 * (docs/hosts/opencode.md).
 *
 * - experimental.chat.system.transform: the state block, pushed to the system prompt;
 *   then the session's brief (asked once per session: earlier sessions' work, the
 *   owner's standing words, what is still in force); after a compaction, also the
 *   restore block (what the summary lost, verbatim).
 * - chat.message: the owner's prompt is recorded (after the session's brief was built,
 *   so the brief never echoes it; a subagent's session records nothing).
 * - experimental.session.compacting: the snapshot of the session's messages is stored;
 *   its guidance and the state block are appended to OpenCode's own compaction prompt
 *   (`output.context`).
 * - event session.compacted (or the first model call after the summary is written):
 *   OpenCode's summary is checked against that snapshot, and the restore block fetched.
 * - tool.execute.before (bash): the loop brake (throwing blocks the call);
 *   tool.execute.after (bash): the outcome it counts.
 * - event session.idle: auto-log; session.created: the session starts.
 *
 * Fail-open: any contextward failure leaves OpenCode's behaviour unchanged; only a
 * deliberate loop-brake refusal throws. Owns no policy.
 */

import type { Hooks, Plugin, PluginInput } from "@opencode-ai/plugin";
import { BridgeClient, failOpen, fitToFrame, type BridgeOptions } from "../../bridge-client/src/client.ts";

export interface ContextwardOpenCodeOptions {
  /** Parts to leave out: any of "state", "brief", "prompts", "compaction", "loops", "lifecycle". */
  disable?: string[];
  bridge?: BridgeOptions;
}

export interface BridgeMessage {
  id: string;
  role: "user" | "assistant" | "system" | "tool";
  content: string;
  tool_name?: string;
  is_error?: boolean;
}

/** A loop-brake refusal: the one error this plugin throws on purpose. */
export class LoopBrakeRefusal extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "LoopBrakeRefusal";
  }
}

/** Build the hooks; `index.ts` exports the plugin OpenCode loads. */
export function contextwardHooks(
  input: Pick<PluginInput, "client" | "directory">,
  options: ContextwardOpenCodeOptions = {},
): { hooks: Hooks; bridge: BridgeClient } {
  const off = new Set(options.disable ?? envList(process.env.CONTEXTWARD_OPENCODE_DISABLE));
  const log = (line: string) => console.error(line);
  const bridge = new BridgeClient({ cwd: input.directory, log, ...options.bridge });
  const stateBlock = async (sessionID: string | undefined): Promise<string> => {
    const state = await failOpen(
      "state block",
      () => bridge.request<{ text: string }>("state_block", sessionID ? { session_id: sessionID } : {}),
      undefined,
      log,
    );
    return state?.text ?? "";
  };
  const hooks: Hooks = {};

  // The compaction loop, per session: the snapshot taken before OpenCode summarises,
  // the check of its summary (once, memoised while in flight), and the restore block
  // that check produced. OpenCode rebuilds the system prompt for every model call and
  // never stores it, so the block goes into each call until the next compaction.
  const pending = new Map<string, { seq: number; since: number }>();
  const settling = new Map<string, Promise<void>>();
  const restoreText = new Map<string, string>();

  /** Check the summary of the compaction in progress, once it is written; fail open. */
  const settle = (sessionID: string, final: boolean): Promise<void> => {
    const running = settling.get(sessionID);
    if (running) return running;
    const entry = pending.get(sessionID);
    if (!entry) return Promise.resolve();
    const promise = failOpen(
      "summary check",
      async () => {
        const summary = await compactionSummary(input.client, sessionID, entry.since, final);
        if (summary === undefined) return; // still being written
        pending.delete(sessionID);
        if (!summary) return; // the compaction failed: nothing to check
        const checked = await bridge.request<{ checked: boolean }>("check_summary", {
          summary,
          session_id: sessionID,
          snapshot_seq: entry.seq,
          label: "opencode",
        });
        if (!checked.checked) return;
        const restore = await bridge.request<{ text: string }>("restore", { session_id: sessionID });
        restoreText.set(sessionID, restore.text);
      },
      undefined,
      log,
    ).finally(() => settling.delete(sessionID));
    settling.set(sessionID, promise);
    return promise;
  };

  // The brief, asked once per session this process meets (a new session's first model
  // call, or the first after `opencode run --continue`). OpenCode rebuilds the system
  // prompt for every call and never stores it, so the brief goes into each call.
  const briefs = new Map<string, Promise<string>>();
  const brief = (sessionID: string): Promise<string> => {
    let found = briefs.get(sessionID);
    if (!found) {
      found = loadBrief(sessionID);
      briefs.set(sessionID, found);
    }
    return found;
  };
  const loadBrief = async (sessionID: string): Promise<string> => {
    // A session compacted before (in this process or an earlier one) has its restore
    // block for what was lost; the brief then leaves that, and the owner's words the
    // summary carries, to it, as after a compaction in pi and Claude Code.
    let compacted = pending.has(sessionID) || restoreText.has(sessionID);
    if (!off.has("compaction") && !compacted) {
      const stored = await failOpen(
        "restore",
        () => bridge.request<{ text: string; snapshot_seq: number | null }>("restore", { session_id: sessionID }),
        undefined,
        log,
      );
      if (stored && !restoreText.has(sessionID) && !pending.has(sessionID)) restoreText.set(sessionID, stored.text);
      compacted = typeof stored?.snapshot_seq === "number";
    }
    const answer = await failOpen(
      "brief",
      () =>
        bridge.request<{ text: string }>("brief", {
          session_id: sessionID,
          after_compaction: compacted && !off.has("compaction"),
        }),
      undefined,
      log,
    );
    return answer?.text ?? "";
  };

  // Whether a session is a subagent's (the task tool's child session): its "user"
  // messages are the parent agent's words, not the owner's.
  const subagent = new Map<string, Promise<boolean>>();
  const isSubagent = (sessionID: string): Promise<boolean> => {
    let found = subagent.get(sessionID);
    if (!found) {
      found = input.client.session
        .get({ path: { id: sessionID } })
        .then((response) => typeof response.data?.parentID === "string" && response.data.parentID !== "")
        .catch(() => false);
      subagent.set(sessionID, found);
    }
    return found;
  };

  // The owner's sessions this process saw: ended when OpenCode disposes the plugin (it
  // sends no end of its own), so the next session's brief may carry what they lost.
  const owned = new Set<string>();

  if (!off.has("brief") || !off.has("prompts") || !off.has("lifecycle")) {
    hooks["chat.message"] = async (hookInput, output) => {
      const sessionID = hookInput.sessionID;
      if (typeof sessionID !== "string" || !sessionID) return;
      // The brief first: built before this prompt is recorded, it never shows it back.
      if (!off.has("brief")) await brief(sessionID);
      if (off.has("prompts") && off.has("lifecycle")) return;
      const text = (output.parts ?? [])
        .filter((part) => part.type === "text" && typeof part.text === "string" && part.synthetic !== true)
        .map((part) => (part as { text: string }).text)
        .join("\n");
      if (!text.trim() || (await isSubagent(sessionID))) return;
      // An owner's session, ended on dispose even when its prompts are not recorded.
      owned.add(sessionID);
      if (off.has("prompts")) return;
      const messageID = output.message?.id ?? hookInput.messageID;
      await failOpen(
        "prompt record",
        () =>
          bridge.request("record_prompt", {
            text,
            session_id: sessionID,
            ...(typeof messageID === "string" && messageID ? { prompt_id: messageID } : {}),
          }),
        undefined,
        log,
      );
    };
  }

  if (!off.has("state") || !off.has("compaction") || !off.has("brief")) {
    hooks["experimental.chat.system.transform"] = async (hookInput, output) => {
      const sessionID = hookInput.sessionID;
      if (!off.has("state")) {
        const text = await stateBlock(sessionID);
        if (text) output.system.push(text);
      }
      if (!off.has("brief") && sessionID) {
        const text = await brief(sessionID);
        if (text) output.system.push(text);
      }
      if (off.has("compaction") || !sessionID) return;
      if (pending.has(sessionID) || settling.has(sessionID)) await settle(sessionID, false);
      if (!restoreText.has(sessionID) && !pending.has(sessionID)) {
        // A session this process has not seen (`opencode run --continue` starts a new
        // one): what an earlier compaction of it lost is in the store.
        const stored = await failOpen(
          "restore",
          () => bridge.request<{ text: string }>("restore", { session_id: sessionID }),
          undefined,
          log,
        );
        restoreText.set(sessionID, stored?.text ?? "");
      }
      const restore = restoreText.get(sessionID);
      if (restore) output.system.push(restore);
    };
  }

  if (!off.has("compaction")) {
    hooks["experimental.session.compacting"] = async (hookInput, output) => {
      const sessionID = hookInput.sessionID;
      const since = Date.now();
      const taken = await failOpen(
        "compaction snapshot",
        async () => {
          const messages = await sessionMessages(input.client, sessionID);
          if (messages.length === 0) return undefined;
          return bridge.request<{ text: string; snapshot_seq: number }>(
            "snapshot",
            { messages, session_id: sessionID, label: "opencode" },
            { timeoutMs: 30_000 },
          );
        },
        undefined,
        log,
      );
      if (taken) pending.set(sessionID, { seq: taken.snapshot_seq, since });
      if (taken?.text) output.context.push(taken.text);
      const text = await stateBlock(sessionID);
      if (text) output.context.push(text);
    };
  }

  if (!off.has("loops")) {
    hooks["tool.execute.before"] = async (hookInput, output) => {
      if (hookInput.tool !== "bash") return;
      const command = (output.args as { command?: unknown } | undefined)?.command;
      if (typeof command !== "string" || !command.trim()) return;
      const verdict = await failOpen(
        "loop brake",
        () => bridge.request<{ action: string; reason: string }>("loop_check", { command, session_id: hookInput.sessionID }),
        undefined,
        log,
      );
      if (verdict?.action === "block") throw new LoopBrakeRefusal(verdict.reason);
    };
  }

  if (!off.has("loops") || !off.has("lifecycle")) {
    hooks["tool.execute.after"] = async (hookInput, output) => {
      if (!off.has("lifecycle")) {
        // Every tool call, once by its id: the state block counts them.
        await failOpen(
          "tool call",
          () =>
            bridge.request("record_event", {
              event: "tool_call",
              session_id: hookInput.sessionID,
              tool: hookInput.tool,
              key: hookInput.callID,
            }),
          undefined,
          log,
        );
      }
      if (off.has("loops") || hookInput.tool !== "bash") return;
      const command = (hookInput.args as { command?: unknown } | undefined)?.command;
      const exit = (output.metadata as { exit?: unknown } | undefined)?.exit;
      if (typeof command !== "string" || typeof exit !== "number" || !Number.isInteger(exit)) return;
      await failOpen(
        "command outcome",
        () => bridge.request("command_outcome", { command, exit_code: exit, session_id: hookInput.sessionID }),
        undefined,
        log,
      );
    };
  }

  // Lifecycle records still in flight: `opencode run` disposes the plugin while the last
  // session.idle is being recorded, and dispose must not cut that request off.
  const inflight = new Set<Promise<unknown>>();

  if (!off.has("lifecycle") || !off.has("compaction")) {
    hooks.event = async ({ event }) => {
      const properties = event.properties as { sessionID?: unknown; info?: { id?: unknown } };
      const sessionID = typeof properties.sessionID === "string" ? properties.sessionID : properties.info?.id;
      if (typeof sessionID !== "string") return;
      if (event.type === "session.compacted") {
        if (off.has("compaction")) return;
        // A model call may have started the check before the summary was complete:
        // then it is this event's turn.
        const checked = settle(sessionID, true).then(() => (pending.has(sessionID) ? settle(sessionID, true) : undefined));
        inflight.add(checked);
        try {
          await checked;
        } finally {
          inflight.delete(checked);
        }
        return;
      }
      if (off.has("lifecycle")) return;
      const kind =
        event.type === "session.idle" ? "session_idle" : event.type === "session.created" ? "session_start" : undefined;
      if (!kind) return;
      const recorded = failOpen(
        kind,
        () => bridge.request("record_event", { event: kind, session_id: sessionID, host: "opencode" }),
        undefined,
        log,
      );
      inflight.add(recorded);
      try {
        await recorded;
      } finally {
        inflight.delete(recorded);
      }
    };
  }

  hooks.dispose = async () => {
    await Promise.allSettled([...inflight]);
    if (!off.has("lifecycle")) {
      await Promise.allSettled(
        [...owned].map((sessionID) =>
          failOpen(
            "session end",
            () => bridge.request("record_event", { event: "session_end", session_id: sessionID, host: "opencode" }),
            undefined,
            log,
          ),
        ),
      );
    }
    bridge.close();
  };
  return { hooks, bridge };
}

/** The plugin OpenCode loads. */
export const ContextwardPlugin: Plugin = async (input) => contextwardHooks(input).hooks;

/** The session's messages in the bridge's generic shape (DESIGN.md "Messages in"). */
export async function sessionMessages(client: PluginInput["client"], sessionID: string): Promise<BridgeMessage[]> {
  const response = await client.session.messages({ path: { id: sessionID } });
  // A long session must still fit one bridge frame: the opening and the newest.
  return fitToFrame(toBridgeMessages(sinceLastSummary(response.data ?? [])));
}

type SessionMessage = {
  info: { id: string; role: string; summary?: unknown; error?: unknown; time?: { created?: number; completed?: number } };
  parts: { type: string; [key: string]: unknown }[];
};

/** The messages from the last compaction summary on: OpenCode keeps the ones before it. */
export function sinceLastSummary<T extends SessionMessage>(messages: readonly T[]): T[] {
  let start = 0;
  messages.forEach((message, index) => {
    if (message.info.role === "assistant" && message.info.summary === true) start = index;
  });
  return messages.slice(start);
}

/**
 * The text of the summary a compaction started at `since` wrote: undefined while it is
 * still being written (unless `final`), "" when the compaction failed.
 */
export async function compactionSummary(
  client: PluginInput["client"],
  sessionID: string,
  since: number,
  final: boolean,
): Promise<string | undefined> {
  const response = await client.session.messages({ path: { id: sessionID } });
  const messages: readonly SessionMessage[] = response.data ?? [];
  const summary = [...messages]
    .reverse()
    .find((m) => m.info.role === "assistant" && m.info.summary === true && (m.info.time?.created ?? 0) >= since);
  if (!summary) return final ? "" : undefined;
  if (summary.info.error) return "";
  if (!final && typeof summary.info.time?.completed !== "number") return undefined;
  return summary.parts
    .filter((part) => part.type === "text" && typeof part.text === "string" && part.synthetic !== true)
    .map((part) => part.text as string)
    .join("\n");
}

export function toBridgeMessages(messages: readonly SessionMessage[]): BridgeMessage[] {
  const out: BridgeMessage[] = [];
  for (const { info, parts } of messages) {
    const role = info.role === "user" ? "user" : "assistant";
    const text = parts
      .filter((part) => part.type === "text" && typeof part.text === "string" && part.synthetic !== true)
      .map((part) => part.text as string)
      .join("\n");
    if (text.trim()) out.push({ id: info.id, role, content: text });
    for (const part of parts) {
      if (part.type !== "tool") continue;
      const state = part.state as { status?: string; output?: unknown; error?: unknown } | undefined;
      const output = state?.status === "completed" ? state.output : state?.status === "error" ? state.error : undefined;
      if (typeof output !== "string") continue;
      out.push({
        id: `${info.id}:${String(part.callID ?? part.id)}`,
        role: "tool",
        content: output,
        tool_name: typeof part.tool === "string" ? part.tool : "tool",
        is_error: state?.status === "error",
      });
    }
  }
  return out;
}

function envList(value: string | undefined): string[] {
  return (value ?? "").split(",").map((part) => part.trim()).filter(Boolean);
}
