import type { VshForm } from "../../../src/ir/forms.js";
import type { AmdRule } from "./rule.js";

export const vshRules: AmdRule<VshForm>[] = [];
