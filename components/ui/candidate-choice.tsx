'use client';

import { createContext, useContext, useState, type ReactNode } from 'react';

type ChoiceState = {
  /** The option chosen to approve at (its optionKey), shared by the decision list and the week. */
  choice: string;
  setChoice: (key: string) => void;
  /** The option under the pointer or keyboard focus, in the list or on the week: the week shows it instead, until it leaves. */
  preview: string | null;
  setPreview: (key: string | null) => void;
};

const ChoiceContext = createContext<ChoiceState | null>(null);

/**
 * The review page's one piece of shared state (docs/dashboard.md "Review"):
 * which candidate is chosen and which one the owner is looking at, so the
 * decision list and the week's candidate layer highlight the same time.
 */
export function CandidateChoiceProvider({ initial, children }: { initial: string; children: ReactNode }) {
  const [choice, setChoice] = useState(initial);
  const [preview, setPreview] = useState<string | null>(null);
  return <ChoiceContext.Provider value={{ choice, setChoice, preview, setPreview }}>{children}</ChoiceContext.Provider>;
}

/** The shared choice, or (outside a provider) a choice of the caller's own starting at `initial`. */
export function useCandidateChoice(initial: string): ChoiceState {
  const shared = useContext(ChoiceContext);
  const [choice, setChoice] = useState(initial);
  const [preview, setPreview] = useState<string | null>(null);
  return shared ?? { choice, setChoice, preview, setPreview };
}

/** The shared choice for the week's candidate layer (nothing highlighted outside a provider). */
export function useCandidateFocus(): ChoiceState | null {
  return useContext(ChoiceContext);
}
