/** The look of text inputs, textareas and native selects (a module of its own: the public pages import it without the Field wiring). */
export const controlClasses =
  'w-full rounded-md border border-line bg-surface px-3 text-sm text-fg placeholder:text-muted ' +
  'aria-[invalid=true]:border-danger disabled:opacity-60';
