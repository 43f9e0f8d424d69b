/**
 * The LLM reviewer's prompt, after SPADE's review: read an environment that already passed
 * the executable gate and accept it unless it has a clear, fatal bug.
 */
import type { ChatMessage, EnvironmentProgram } from '../../types.js';

export function reviewMessages(program: EnvironmentProgram, firstObservation: string | undefined, systemPrompt?: string): ChatMessage[] {
  const fence = program.language === 'python' ? '```python' : '```javascript';
  return [
    {
      role: 'system',
      content: systemPrompt ?? [
        'You review training environments written for a reasoning agent. Each one has already passed automatic checks: it loads, its methods keep their contract, it is deterministic, its reference solution wins and wrong answers lose.',
        'Accept the environment unless it has a clear, fatal bug, such as: the task cannot be understood from the observation; the observation gives the answer away; the checker accepts wrong answers or rejects right ones in ways the automatic checks could miss; the hint reveals the answer outright; the task is impossible.',
        'Minor issues (style, wording, difficulty) are no reason to reject.',
        'Explain briefly, then end with \\boxed{ACCEPT} or \\boxed{REJECT}.',
      ].join('\n'),
    },
    {
      role: 'user',
      content: [`${fence}\n${program.source.trim()}\n\`\`\``, '', 'Its first observation:', firstObservation ?? '(none)'].join('\n'),
    },
  ];
}
