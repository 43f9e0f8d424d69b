/** Program source shared by the families that score code guesses (lock clues, mastermind). */
export const GUESS_FEEDBACK = String.raw`
/** [right place, right digit in the wrong place] of a guess against a code (arrays of digits). */
const FEEDBACK_COUNTS = new Int8Array(10);
function guessFeedback(code, guess) {
  let exact = 0;
  let common = 0;
  FEEDBACK_COUNTS.fill(0);
  for (let i = 0; i < code.length; i++) {
    if (code[i] === guess[i]) exact++;
    FEEDBACK_COUNTS[code[i]]++;
  }
  for (let i = 0; i < guess.length; i++) {
    if (FEEDBACK_COUNTS[guess[i]] > 0) { FEEDBACK_COUNTS[guess[i]]--; common++; }
  }
  return [exact, common - exact];
}
`;
