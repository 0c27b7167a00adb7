import type { MatchForm } from "../../../src/ir/forms.js";
import type { AmdRule } from "./rule.js";

export const matchRules: AmdRule<MatchForm>[] = [];
