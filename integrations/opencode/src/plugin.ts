/**
 * contextward for OpenCode: translate OpenCode's hooks into bridge requests
 * (docs/hosts/opencode.md).
 *
 * - experimental.chat.system.transform: the state block, pushed to the system prompt.
 * - experimental.session.compacting: guidance from the session's messages, and the
 *   state block, appended to OpenCode's own compaction prompt (`output.context`).
 * - tool.execute.before (bash): the loop brake (throwing blocks the call);
 *   tool.execute.after (bash): the outcome it counts.
 * - event session.idle: auto-log; session.created: the session starts.
 *
 * Fail-open: any contextward failure leaves OpenCode's behaviour unchanged; only a
 * deliberate loop-brake refusal throws. Owns no policy.
 */

import type { Hooks, Plugin, PluginInput } from "@opencode-ai/plugin";
import { BridgeClient, failOpen, type BridgeOptions } from "../../bridge-client/src/client.ts";

export interface ContextwardOpenCodeOptions {
  /** Parts to leave out: any of "state", "compaction", "loops", "lifecycle". */
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

  if (!off.has("state")) {
    hooks["experimental.chat.system.transform"] = async (hookInput, output) => {
      const text = await stateBlock(hookInput.sessionID);
      if (text) output.system.push(text);
    };
  }

  if (!off.has("compaction")) {
    hooks["experimental.session.compacting"] = async (hookInput, output) => {
      const guidance = await failOpen(
        "compaction guidance",
        async () => {
          const messages = await sessionMessages(input.client, hookInput.sessionID);
          if (messages.length === 0) return undefined;
          return bridge.request<{ text: string }>("guidance", { messages, session_id: hookInput.sessionID }, { timeoutMs: 30_000 });
        },
        undefined,
        log,
      );
      if (guidance?.text) output.context.push(guidance.text);
      const text = await stateBlock(hookInput.sessionID);
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
    hooks["tool.execute.after"] = async (hookInput, output) => {
      if (hookInput.tool !== "bash") return;
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

  if (!off.has("lifecycle")) {
    hooks.event = async ({ event }) => {
      const kind =
        event.type === "session.idle" ? "session_idle" : event.type === "session.created" ? "session_start" : undefined;
      if (!kind) return;
      const properties = event.properties as { sessionID?: unknown; info?: { id?: unknown } };
      const sessionID = typeof properties.sessionID === "string" ? properties.sessionID : properties.info?.id;
      if (typeof sessionID !== "string") return;
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
    bridge.close();
  };
  return { hooks, bridge };
}

/** The plugin OpenCode loads. */
export const ContextwardPlugin: Plugin = async (input) => contextwardHooks(input).hooks;

/** The session's messages in the bridge's generic shape (DESIGN.md "Messages in"). */
export async function sessionMessages(client: PluginInput["client"], sessionID: string): Promise<BridgeMessage[]> {
  const response = await client.session.messages({ path: { id: sessionID } });
  return toBridgeMessages(response.data ?? []);
}

type SessionMessage = { info: { id: string; role: string }; parts: { type: string; [key: string]: unknown }[] };

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
