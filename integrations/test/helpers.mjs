// Shared by the node tests: the REAL Python bridge command, and a scratch project folder.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");

/** The interpreter that has contextward installed: $CONTEXTWARD_TEST_PYTHON, else the repo's .venv. */
export function python() {
  const chosen = process.env.CONTEXTWARD_TEST_PYTHON || join(repo, ".venv", "bin", "python");
  if (!existsSync(chosen)) throw new Error(`no Python with contextward at ${chosen}; set CONTEXTWARD_TEST_PYTHON`);
  return chosen;
}

/** `contextward bridge --stdio`, run by that interpreter (no PATH lookup, spaces in paths are fine). */
export function bridgeCommand() {
  return [python(), "-c", "from contextward.cli import main; main()", "bridge", "--stdio"];
}

/** A fresh project folder and the bridge options that serve it. */
export function project(t) {
  const cwd = mkdtempSync(join(tmpdir(), "contextward-node-"));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const env = { ...process.env, CONTEXTWARD_HOME: join(cwd, ".home") };
  return { cwd, env, bridge: { command: bridgeCommand(), cwd, env } };
}

export const MESSAGES = [
  { id: "u1", role: "user", content: "Goal: ship OAuth login. Never change the public API." },
  { id: "a1", role: "assistant", content: "We chose PostgreSQL as the final database." },
  { id: "t1", role: "tool", tool_name: "bash", content: "src/a.py:1: OAuth" },
];
