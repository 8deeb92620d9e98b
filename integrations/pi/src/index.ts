/**
 * The pi extension entry point: `pi -e ./integrations/pi/src/index.ts`, or install the
 * package (see docs/hosts/pi.md). pi loads it with jiti, so no build step is needed.
 */

import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { compact } from "@mariozechner/pi-coding-agent";
import { completeSimple } from "@mariozechner/pi-ai";
import { registerContextward } from "./extension.ts";

export default function contextward(pi: ExtensionAPI): void {
  registerContextward(pi, { compact, completeSimple });
}
