/** The signed-in session; sign-in, sign-out and a change of one's own role make it stale. */
export const authKeys = {
  session: ['session'] as const,
};
