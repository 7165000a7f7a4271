/** Public surface of the pure scheduling core. */
export * from './types';
export { isSacred, DEFAULT_SACRED_MEETING_AGE_HOURS, type SacredInput } from './sacred';
export {
  workingIntervals,
  isWorkingDay,
  localDayBounds,
  hardBlockIntervals,
  bookedMinutesOnLocalDay,
  claimMsOnDay,
  claimsMsOnDay,
} from './timeRules';
export { parseRRule, RRuleError, type ParsedRRule } from './rrule';
export { validateOwnerRules, storedHardBlocks, blocksWithCheckpoints, type RuleIssue } from './validate';
export { canonicalTimeZone, timeZoneName } from './timeZone';
export { localIso, localSpan, type LocalSpan } from './localSpan';
export { capPerDay, distinctSlots, localDay } from './spread';
export * from './limits';
export { arbitrate, decide, findAlternatives, findConflicts, warningsFor, ALTERNATIVES_RADIUS_MS, ALTERNATIVES_STEP_MINUTES, MAX_ALTERNATIVES, VERDICT_CLAIMS_MARGIN_MS } from './arbitrate';
export { evaluateSlot, type SlotVerdict, type FailedStage } from './evaluate';
export { SchedulingContext, RulesCalendar } from './schedulingContext';
export {
  searchSlots,
  nextAvailable,
  findHoldStretch,
  findHoldStretches,
  windowTooNarrow,
  DEFAULT_STEP_MINUTES,
  DEFAULT_MAX_RESULTS,
  type SearchSlotsParams,
  type SearchSlotsResult,
  type NextAvailableParams,
  type HoldStretchParams,
} from './slots';
export {
  decideGroupSlot,
  searchGroupSlots,
  explainNoGroupSlots,
  nextGroupSlot,
  groupMember,
  groupMembers,
  lastStartOnFacts,
  type GroupMode,
  type GroupMember,
  type GroupMemberFacts,
  type GroupSlot,
  type GroupSlotDecision,
  type GroupSlotOptions,
  type MemberRefusal,
  type MemberNoSlots,
  type SearchGroupSlotsParams,
} from './group';
