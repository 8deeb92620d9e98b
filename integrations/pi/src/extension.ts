/**
 * contextward for pi: translate pi's events into bridge requests (docs/hosts/pi.md).
 *
 * - session_before_compact: inspect the messages about to be summarized (the host's
 *   model may answer provider requests), let the owner review uncertain items when
 *   there is a UI (else keep them), store the snapshot of what must survive, and hand
 *   its guidance to pi's own `compact()`.
 * - session_compact: check pi's summary against that snapshot (the report is stored).
 * - before_agent_start: the brief, once per session; after a compaction, the restore
 *   block (what the summary lost or changed, verbatim) and the brief again.
 * - tool_call (bash): the loop brake; tool_result (bash): the outcome it counts.
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
  /** Parts to leave out: any of "compaction", "brief", "loops", "lifecycle", "provider". */
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
  action: "keep" | "drop" | "review";
}

interface Inspection {
  inspection_id: string;
  candidates: Candidate[];
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
  let briefDue = true;
  let briefDigest: string | undefined;

  if (!off.has("lifecycle")) {
    pi.on("session_start", async (event, ctx) => {
      briefDue = true;
      await failOpen("session start", () => client.request("record_event", { event: "session_start", session_id: sessionId(ctx), host: "pi" }), undefined, log);
      return undefined;
    });
    pi.on("session_shutdown", async (_event, ctx) => {
      await failOpen("session end", () => client.request("record_event", { event: "session_end", session_id: sessionId(ctx) }), undefined, log);
      client.close();
      return undefined;
    });
  }

  // After a compaction: the check of pi's summary (in flight or done) and the restore
  // block it produced, delivered once with the next prompt.
  let snapshotSeq: number | undefined;
  let settling: Promise<void> | undefined;
  let restoreText = "";
  let afterCompaction = false;

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
        const restore = await client.request<{ text: string }>("restore", { session_id: session });
        restoreText = restore.text;
      },
      undefined,
      log,
    );
  };

  if (!off.has("compaction") || !off.has("brief")) {
    pi.on("session_compact", async (event, ctx) => {
      briefDue = true;
      briefDigest = undefined;
      afterCompaction = true;
      if (off.has("compaction")) return undefined;
      const taken = snapshotSeq;
      snapshotSeq = undefined;
      settling = settle(event.compactionEntry.summary, sessionId(ctx), taken);
      await settling;
      return undefined;
    });
  }

  if (!off.has("brief") || !off.has("compaction")) {
    pi.on("before_agent_start", async (_event, ctx): Promise<BeforeAgentStartEventResult | undefined> => {
      if (settling) await settling;
      settling = undefined;
      const parts: string[] = [];
      if (restoreText) parts.push(restoreText);
      restoreText = "";
      const after = afterCompaction;
      afterCompaction = false;
      if (!off.has("brief") && briefDue) {
        const brief = await failOpen(
          "brief",
          () =>
            client.request<{ text: string; digest: string; changed: boolean }>("brief", {
              session_id: sessionId(ctx),
              digest: briefDigest,
              // The restore block carries what the summary lost: not twice.
              after_compaction: after && !off.has("compaction"),
            }),
          undefined,
          log,
        );
        if (brief) {
          briefDue = false;
          briefDigest = brief.digest;
          if (brief.changed && brief.text) parts.push(brief.text);
        }
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
    pi.on("context", async (event): Promise<{ messages: ContextEvent["messages"] } | undefined> => {
      if (settling) await settling;
      if (!restoreText) return undefined;
      const restore = { role: "custom" as const, customType: CUSTOM_TYPE, content: restoreText, display: false, timestamp: Date.now() };
      const messages = [...event.messages];
      const last = messages.map((message) => message.role).lastIndexOf("user");
      messages.splice(Math.max(last, 0), 0, restore);
      return { messages };
    });
  }

  if (!off.has("loops")) {
    pi.on("tool_call", async (event, ctx): Promise<ToolCallEventResult | undefined> => {
      if (event.toolName !== "bash") return undefined;
      const command = (event.input as { command?: unknown }).command;
      if (typeof command !== "string" || !command.trim()) return undefined;
      const verdict = await failOpen(
        "loop brake",
        () => client.request<{ action: string; reason: string }>("loop_check", { command, session_id: sessionId(ctx) }),
        undefined,
        log,
      );
      if (verdict?.action === "block") return { block: true, reason: verdict.reason };
      return undefined;
    });
    pi.on("tool_result", async (event, ctx) => {
      if (event.toolName !== "bash") return undefined;
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
            inspection = await client.request<Inspection>(
              "inspect",
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

/** Ask the owner about uncertain items when pi has a UI; keep what nobody could review. */
async function review(ctx: ExtensionContext, inspection: Inspection, limit: number): Promise<{ candidate_id: string; action: "keep" | "drop" }[]> {
  const uncertain = inspection.candidates.filter((c) => c.action === "review");
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
