/**
 * The OpenCode plugin entry point: copy or link this folder into `.opencode/plugins/`
 * (see docs/hosts/opencode.md). OpenCode runs it with Bun, so no build step is needed.
 */

export { ContextwardPlugin } from "./plugin.ts";
