// Types for the local ESLint plugin (its unit test imports it).
import type { Rule } from 'eslint';

declare const plugin: { meta: { name: string }; rules: { 'no-raw-datetime-formatting': Rule.RuleModule } };
export default plugin;
