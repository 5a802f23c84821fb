/**
 * Deepest nesting a JSON request body may have. JSON.parse copes with any depth, but the
 * recursive JSON.stringify on the way to PostgreSQL overflows the stack a few thousand levels
 * down, which would surface as a 500 for what is bad input. Checked with the unstorable values
 * (findUnstorable), in the same walk, at the edge: every request body and every webhook payload.
 */
export const MAX_BODY_DEPTH = 100;
