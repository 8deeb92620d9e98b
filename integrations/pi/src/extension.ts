/**
 * contextward for pi: translate pi's events into bridge requests (docs/hosts/pi.md).
 *
 * - session_before_compact: inspect the messages about to be summarized (the host's
 *   model may answer provider requests) through `guidance`, whose answer is bounded
 *   however long the session, let the owner review uncertain items when there is a UI
 *   (else keep them), store the snapshot of what must survive, and hand its guidance
 *   to pi's own `compact()`.
 * - session_compact: check pi's summary against that snapshot (the report is stored).
 * - before_agent_start: the brief, once per session id (a /new, /resume or /fork
 *   session gets its own); after a compaction, the restore block (what the summary lost
 *   or changed, verbatim) and the brief again. Then the owner's prompt, which `input`
 *   saw, is recorded (after the brief, so the brief never echoes it back).
 * - tool_call (bash): the loop brake, and the owner's confirmation of a risky command
 *   when pi has a UI; tool_result: the outcome the brake counts (bash), and every tool
 *   call for the session's auto-log.
 * - session_start / session_shutdown: the session lifecycle (auto-log).
 *
 * Fail-open: any contextward failure returns undefined, so pi does what it would
 * have done without us. Owns no policy; holds no API key beyond one compaction.
 */

import type {
  BeforeAgentStartEventResult,
  ContextEvent,
  ExtensionAPI,
  ExtensionContext,
  SessionBeforeCompactEvent,
  ToolCallEventResult,
} from "@mariozechner/pi-coding-agent";
import type { Api, AssistantMessage, Context, Model, SimpleStreamOptions } from "@mariozechner/pi-ai";
import type { CompactionResult } from "@mariozechner/pi-coding-agent";
import { BridgeClient, failOpen, fitToFrame, type BridgeOptions, type Json, type ProviderRequest } from "../../bridge-client/src/client.ts";

/** pi's functions the extension calls; `index.ts` passes the real ones. */
export interface PiFunctions {
  compact: (
    preparation: SessionBeforeCompactEvent["preparation"],
    model: Model<any>,
    apiKey: string,
    headers?: Record<string, string>,
    customInstructions?: string,
    signal?: AbortSignal,
    thinkingLevel?: ReturnType<ExtensionAPI["getThinkingLevel"]>,
  ) => Promise<CompactionResult>;
  completeSimple: (model: Model<Api>, context: Context, options?: SimpleStreamOptions) => Promise<AssistantMessage>;
}

export interface ContextwardPiOptions {
  /** Parts to leave out: any of "compaction", "brief", "prompts", "loops", "lifecycle", "provider". */
  disable?: string[];
  /** At most this many uncertain items are put to the owner; the rest are kept. */
  maxReviewQuestions?: number;
  bridge?: BridgeOptions;
}

type PiMessage = SessionBeforeCompactEvent["preparation"]["messagesToSummarize"][number];

export interface BridgeMessage {
  id: string;
  role: "user" | "assistant" | "system" | "tool";
  content: string;
  tool_name?: string;
  is_error?: boolean;
}

interface Candidate {
  id: string;
  kind: string;
  content: string;
}

/** `guidance`'s answer: bounded (its sections are capped), unlike `inspect`'s full list. */
interface Inspection {
  inspection_id: string;
  unresolved: Omit<Candidate, "action">[];
}

interface SnapshotResult {
  text: string;
  snapshot_seq: number;
  counts: { [action: string]: number };
}

const CUSTOM_TYPE = "contextward";

/** Register contextward's handlers on `pi`; returns the bridge client (tests close it). */
export function registerContextward(
  pi: ExtensionAPI,
  fns: PiFunctions,
  options: ContextwardPiOptions = {},
): BridgeClient {
  const off = new Set(options.disable ?? envList(process.env.CONTEXTWARD_PI_DISABLE));
  const log = (line: string) => console.error(line);
  // The model of the compaction in progress; provider requests use it and nothing else.
  let active: { ctx: ExtensionContext; apiKey: string | undefined; headers: Record<string, string> | undefined; signal: AbortSignal } | undefined;
  const client = new BridgeClient({
    log,
    ...options.bridge,
    provider: async (request: ProviderRequest, signal: AbortSignal): Promise<Json> => {
      if (!active?.ctx.model) throw new Error("no model is active");
      return answerWithModel(fns, active, request, signal);
    },
  });
  // Per session id: pi keeps one extension across /new, /resume and /fork, and each of
  // those sessions needs its own brief. `due` until delivered; again after a compaction.
  const briefs = new Map<string, { due: boolean; digest: string | undefined }>();
  const briefOf = (session: string) => {
    let state = briefs.get(session);
    if (!state) briefs.set(session, (state = { due: true, digest: undefined }));
    return state;
  };
  // The owner's last typed prompt (pi's `input`), recorded at before_agent_start.
  let typed: { session: string; text: string } | undefined;

  if (!off.has("lifecycle") || !off.has("brief")) {
    pi.on("session_start", async (_event, ctx) => {
      // A session met again (/resume) gets the brief again when it changed since.
      const seen = briefs.get(sessionId(ctx));
      if (seen) seen.due = true;
      if (off.has("lifecycle")) return undefined;
      await failOpen("session start", () => client.request("record_event", { event: "session_start", session_id: sessionId(ctx), host: "pi" }), undefined, log);
      return undefined;
    });
  }
  if (!off.has("lifecycle")) {
    pi.on("session_shutdown", async (_event, ctx) => {
      await failOpen("session end", () => client.request("record_event", { event: "session_end", session_id: sessionId(ctx) }), undefined, log);
      client.close();
      return undefined;
    });
  }

  // After a compaction: the check of pi's summary (in flight or done) and the restore
  // block it produced, delivered once with the next prompt of that same session.
  let snapshotSeq: number | undefined;
  let settling: Promise<void> | undefined;
  let restore: { session: string; text: string } | undefined;
  let compacted: string | undefined; // the session whose next brief follows a compaction

  /** Check pi's summary against the snapshot, then fetch the restore block; fail open. */
  const settle = async (summary: unknown, session: string, taken: number | undefined): Promise<void> => {
    if (typeof summary !== "string" || !summary.trim()) return;
    await failOpen(
      "summary check",
      async () => {
        const fields: { [key: string]: unknown } = { summary, session_id: session, label: "pi" };
        if (taken !== undefined) fields.snapshot_seq = taken;
        const checked = await client.request<{ checked: boolean }>("check_summary", fields);
        if (!checked.checked) return;
        const block = await client.request<{ text: string }>("restore", { session_id: session });
        restore = block.text ? { session, text: block.text } : undefined;
      },
      undefined,
      log,
    );
  };

  if (!off.has("compaction") || !off.has("brief")) {
    pi.on("session_compact", async (event, ctx) => {
      const session = sessionId(ctx);
      briefs.set(session, { due: true, digest: undefined });
      compacted = session;
      if (off.has("compaction")) return undefined;
      const taken = snapshotSeq;
      snapshotSeq = undefined;
      settling = settle(event.compactionEntry.summary, session, taken);
      await settling;
      return undefined;
    });
  }

  if (!off.has("prompts")) {
    // The owner's words as typed (before skill and template expansion); what another
    // extension sends is not the owner's.
    pi.on("input", async (event, ctx) => {
      typed = event.source !== "extension" && event.text.trim() ? { session: sessionId(ctx), text: event.text } : undefined;
      return undefined;
    });
  }

  if (!off.has("brief") || !off.has("compaction") || !off.has("prompts")) {
    pi.on("before_agent_start", async (_event, ctx): Promise<BeforeAgentStartEventResult | undefined> => {
      if (settling) await settling;
      settling = undefined;
      const session = sessionId(ctx);
      const parts: string[] = [];
      if (restore?.session === session) parts.push(restore.text);
      restore = undefined;
      const after = compacted === session;
      compacted = undefined;
      const state = briefOf(session);
      if (!off.has("brief") && state.due) {
        const brief = await failOpen(
          "brief",
          () =>
            client.request<{ text: string; digest: string; changed: boolean }>("brief", {
              session_id: session,
              ...(state.digest === undefined ? {} : { digest: state.digest }),
              // The restore block carries what the summary lost: not twice.
              after_compaction: after && !off.has("compaction"),
            }),
          undefined,
          log,
        );
        if (brief) {
          state.due = false;
          state.digest = brief.digest;
          if (brief.changed && brief.text) parts.push(brief.text);
        }
      }
      // Recorded after the brief was built, so the brief never shows the owner the
      // prompt they just typed; later sessions' briefs carry it ("owner said").
      const prompt = typed?.session === session ? typed.text : undefined;
      typed = undefined;
      if (prompt !== undefined) {
        await failOpen("prompt record", () => client.request("record_prompt", { text: prompt, session_id: session }), undefined, log);
      }
      if (parts.length === 0) return undefined;
      return { message: { customType: CUSTOM_TYPE, content: parts.join("\n\n"), display: false } };
    });
  }

  if (!off.has("compaction")) {
    // pi retries an overflowed prompt with agent.continue(), which fires no
    // before_agent_start: until the next prompt delivers the restore block for good,
    // each model call gets it (not persisted), just before the owner's last prompt so
    // that the prompt stays the last thing the owner said.
    pi.on("context", async (event, ctx): Promise<{ messages: ContextEvent["messages"] } | undefined> => {
      if (settling) await settling;
      if (!restore || restore.session !== sessionId(ctx)) return undefined;
      const block = { role: "custom" as const, customType: CUSTOM_TYPE, content: restore.text, display: false, timestamp: Date.now() };
      const messages = [...event.messages];
      const last = messages.map((message) => message.role).lastIndexOf("user");
      messages.splice(Math.max(last, 0), 0, block);
      return { messages };
    });
  }

  if (!off.has("loops")) {
    pi.on("tool_call", async (event, ctx): Promise<ToolCallEventResult | undefined> => {
      if (event.toolName !== "bash") return undefined;
      const command = (event.input as { command?: unknown }).command;
      if (typeof command !== "string" || !command.trim()) return undefined;
      // With a UI, a risky command is put to the owner (can_ask); without one (print or
      // RPC mode) the agent is refused once and told to ask.
      const verdict = await failOpen(
        "loop brake",
        () =>
          client.request<{ action: string; reason: string }>("loop_check", {
            command,
            session_id: sessionId(ctx),
            can_ask: ctx.hasUI === true,
          }),
        undefined,
        log,
      );
      if (verdict?.action === "block") return { block: true, reason: verdict.reason };
      if (verdict?.action === "ask") return confirmRisky(ctx, command, verdict.reason);
      return undefined;
    });
  }

  if (!off.has("loops") || !off.has("lifecycle")) {
    pi.on("tool_result", async (event, ctx) => {
      if (!off.has("lifecycle")) {
        // Every tool call, once by its id: the auto-log and the state block count them.
        await failOpen(
          "tool call",
          () => client.request("record_event", { event: "tool_call", session_id: sessionId(ctx), tool: event.toolName, key: event.toolCallId }),
          undefined,
          log,
        );
      }
      if (off.has("loops") || event.toolName !== "bash") return undefined;
      const command = (event.input as { command?: unknown }).command;
      if (typeof command !== "string" || !command.trim()) return undefined;
      // pi marks a bash call as an error exactly when its exit code is not 0.
      await failOpen(
        "command outcome",
        () => client.request("command_outcome", { command, exit_code: event.isError ? 1 : 0, session_id: sessionId(ctx) }),
        undefined,
        log,
      );
      return undefined;
    });
  }

  if (!off.has("compaction")) {
    pi.on("session_before_compact", async (event, ctx): Promise<{ compaction: CompactionResult } | undefined> => {
      return failOpen(
        "guided compaction",
        async () => {
          const model = ctx.model;
          if (!model) return undefined;
          const auth = await ctx.modelRegistry.getApiKeyAndHeaders(model);
          if (!auth.ok) return undefined;
          // A long session must still fit one bridge frame: the opening and the newest.
          const messages = fitToFrame(toBridgeMessages(event.preparation.messagesToSummarize));
          if (messages.length === 0) return undefined;
          const useProvider = !off.has("provider");
          active = { ctx, apiKey: auth.apiKey, headers: auth.headers, signal: event.signal };
          let inspection: Inspection;
          try {
            // `guidance`, not `inspect`: its answer is bounded (the unresolved items the
            // owner may review among them), so a long session still fits one reply frame.
            inspection = await client.request<Inspection>(
              "guidance",
              // With the session named, the first owner message after an earlier
              // compaction is read as a message of an ongoing session, not its goal.
              { messages, provider_timeout_ms: 60_000, session_id: sessionId(ctx) },
              { provider: useProvider, timeoutMs: useProvider ? 90_000 : 30_000, signal: event.signal },
            );
          } finally {
            active = undefined;
          }
          const decisions = await review(ctx, inspection, options.maxReviewQuestions ?? 5);
          // The snapshot of what must survive is stored before pi summarises; its
          // guidance goes to pi's summarizer and session_compact checks the result.
          const guidance = await client.request<SnapshotResult>(
            "snapshot",
            { inspection_id: inspection.inspection_id, decisions, session_id: sessionId(ctx), label: "pi" },
            { signal: event.signal },
          );
          snapshotSeq = guidance.snapshot_seq;
          if (!guidance.text.trim()) return undefined;
          const instructions = [event.customInstructions, guidance.text].filter((part) => part && part.trim()).join("\n\n");
          const compaction = await fns.compact(
            event.preparation,
            model,
            auth.apiKey ?? "",
            auth.headers,
            instructions,
            event.signal,
            pi.getThinkingLevel(),
          );
          return { compaction };
        },
        undefined,
        log,
      );
    });
  }

  return client;
}

/** The owner's answer to a risky command: run it only when they say yes. */
async function confirmRisky(ctx: ExtensionContext, command: string, reason: string): Promise<ToolCallEventResult | undefined> {
  let yes = false;
  try {
    yes = await ctx.ui.confirm("contextward: run this command?", `${reason}\n\n${command}`);
  } catch {
    yes = false; // no answer is no consent
  }
  if (yes) return undefined;
  return { block: true, reason: `${reason}. The owner was asked and did not approve it; do not run it again unless they say so.` };
}

/** Ask the owner about uncertain items when pi has a UI; keep what nobody could review. */
async function review(ctx: ExtensionContext, inspection: Inspection, limit: number): Promise<{ candidate_id: string; action: "keep" | "drop" }[]> {
  const uncertain = inspection.unresolved;
  const decisions: { candidate_id: string; action: "keep" | "drop" }[] = [];
  for (const [index, candidate] of uncertain.entries()) {
    let keep = true; // the conservative answer (seed 002)
    if (ctx.hasUI && index < limit) {
      keep = await ctx.ui.confirm("contextward: keep this through compaction?", `[${candidate.kind}] ${candidate.content}`);
    }
    decisions.push({ candidate_id: candidate.id, action: keep ? "keep" : "drop" });
  }
  return decisions;
}

async function answerWithModel(
  fns: PiFunctions,
  active: { ctx: ExtensionContext; apiKey: string | undefined; headers: Record<string, string> | undefined; signal: AbortSignal },
  request: ProviderRequest,
  signal: AbortSignal,
): Promise<Json> {
  if (request.task !== "complete") throw new Error("unsupported provider task");
  const { system, prompt } = request.input;
  if (typeof prompt !== "string") throw new Error("provider request without a prompt");
  const model = active.ctx.model;
  if (!model) throw new Error("no model is active");
  const options: SimpleStreamOptions = { signal: AbortSignal.any([signal, active.signal]) };
  if (active.apiKey) options.apiKey = active.apiKey;
  if (active.headers) options.headers = active.headers;
  const context: Context = { messages: [{ role: "user", content: prompt, timestamp: Date.now() }] };
  if (typeof system === "string") context.systemPrompt = system;
  const answer = await fns.completeSimple(model, context, options);
  const text = answer.content
    .filter((block): block is { type: "text"; text: string } => block.type === "text")
    .map((block) => block.text)
    .join("");
  return { text };
}

/** pi's messages in the bridge's generic shape (DESIGN.md "Messages in"). */
export function toBridgeMessages(messages: readonly PiMessage[]): BridgeMessage[] {
  const out: BridgeMessage[] = [];
  messages.forEach((message, index) => {
    const id = `pi${index + 1}`;
    switch (message.role) {
      case "user":
        out.push({ id, role: "user", content: textOf(message.content) });
        return;
      case "assistant":
        out.push({ id, role: "assistant", content: textOf(message.content) });
        return;
      case "toolResult":
        out.push({ id, role: "tool", content: textOf(message.content), tool_name: message.toolName, is_error: message.isError });
        return;
      case "bashExecution":
        out.push({ id, role: "tool", content: message.output, tool_name: "bash", is_error: (message.exitCode ?? 0) !== 0 });
        return;
      case "compactionSummary":
      case "branchSummary":
        out.push({ id, role: "system", content: message.summary });
        return;
      default:
        return; // extension-only messages (custom) are not conversation
    }
  });
  return out.filter((message) => message.content.trim() || message.role === "tool");
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block): block is { type: "text"; text: string } => typeof block === "object" && block !== null && block.type === "text" && typeof block.text === "string")
    .map((block) => block.text)
    .join("\n");
}

function sessionId(ctx: ExtensionContext): string {
  return ctx.sessionManager.getSessionId();
}

function envList(value: string | undefined): string[] {
  return (value ?? "").split(",").map((part) => part.trim()).filter(Boolean);
}
