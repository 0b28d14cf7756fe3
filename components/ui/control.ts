/** The look of the filter bars' inputs and selects (the rollouts and runs pages). */
export const controlClass = 'h-8 rounded-md border border-line bg-bg px-2 text-sm text-fg focus-visible:outline-2 focus-visible:outline-accent';
