/**
 * The concrete example environments shown to the designer model, in each language: a small
 * multi-turn environment with every method of the contract (reset, step, solution-free
 * reference policy, hint), in SPADE's format; and a tool-use one (SPADE's ToolUseBaseEnv).
 */
import type { Language } from '../../types.js';

const PYTHON_EXAMPLE = String.raw`import random
import re


class BinarySearchEnv:
    """Find a hidden number; after each guess the environment says higher or lower."""

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.low, self.high = 1, 200
        self.secret = rng.randint(self.low, self.high)
        self.max_turns = 9
        self.turns = 0
        self.lo, self.hi = self.low, self.high
        observation = (f"I am thinking of a whole number from {self.low} to {self.high}. "
                       f"Guess it: put one number in \\boxed{{}}. You have {self.max_turns} turns.")
        return observation, {"max_turns": self.max_turns}

    def step(self, action):
        self.turns += 1
        found = re.findall(r"\\boxed\{\s*(-?\d+)\s*\}", str(action))
        out_of_turns = self.turns >= self.max_turns
        if not found:
            return "No number found in \\boxed{}.", 0.0, False, out_of_turns, {}
        guess = int(found[-1])
        if guess == self.secret:
            return "Correct!", 1.0, True, False, {"turns": self.turns}
        direction = "higher" if guess < self.secret else "lower"
        return f"{guess} is wrong; go {direction}.", 0.0, False, out_of_turns, {}

    def reference_action(self, observation):
        found = re.match(r"(-?\d+) is wrong; go (higher|lower)", observation)
        if found:
            guess = int(found.group(1))
            if found.group(2) == "higher":
                self.lo = guess + 1
            else:
                self.hi = guess - 1
        return f"\\boxed{{{(self.lo + self.hi) // 2}}}"

    def hint(self):
        return "Halve the interval every turn: guess its middle."
`;

const JAVASCRIPT_EXAMPLE = String.raw`export default class BinarySearchEnv {
  reset(seed) {
    // Math.random is seeded from reset(seed) by the sandbox.
    this.low = 1;
    this.high = 200;
    this.secret = this.low + Math.floor(Math.random() * (this.high - this.low + 1));
    this.maxTurns = 9;
    this.turns = 0;
    this.lo = this.low;
    this.hi = this.high;
    const observation = ` + '`I am thinking of a whole number from ${this.low} to ${this.high}. Guess it: put one number in \\\\boxed{}. You have ${this.maxTurns} turns.`' + String.raw`;
    return [observation, { max_turns: this.maxTurns }];
  }

  step(action) {
    this.turns += 1;
    const found = [...String(action).matchAll(/\\boxed\{\s*(-?\d+)\s*\}/g)];
    const outOfTurns = this.turns >= this.maxTurns;
    if (found.length === 0) return ['No number found in \\boxed{}.', 0, false, outOfTurns, {}];
    const guess = Number(found[found.length - 1][1]);
    if (guess === this.secret) return ['Correct!', 1, true, false, { turns: this.turns }];
    const direction = guess < this.secret ? 'higher' : 'lower';
    return [` + '`${guess} is wrong; go ${direction}.`' + String.raw`, 0, false, outOfTurns, {}];
  }

  referenceAction(observation) {
    const found = /^(-?\d+) is wrong; go (higher|lower)/.exec(observation);
    if (found) {
      const guess = Number(found[1]);
      if (found[2] === 'higher') this.lo = guess + 1;
      else this.hi = guess - 1;
    }
    return ` + '`\\\\boxed{${Math.floor((this.lo + this.hi) / 2)}}`' + String.raw`;
  }

  hint() {
    return 'Halve the interval every turn: guess its middle.';
  }
}
`;

/** The example environment program in `language`. */
export function exampleProgram(language: Language): string {
  return language === 'python' ? PYTHON_EXAMPLE : JAVASCRIPT_EXAMPLE;
}

/**
 * The example tool-use environment shown to the designer model, in each language: a single-task
 * ToolUseBaseEnv game with query and mutation tools, a precondition that makes their order
 * matter, a tool the task does not need, an enum parameter, a checked final state, and a
 * solution() the gate replays.
 */
const PYTHON_TOOL_USE_EXAMPLE = String.raw`import json
import random


class LibraryRenewalEnv(ToolUseBaseEnv):
    """Renew a member's overdue loan; an unpaid fine blocks renewals until it is paid."""

    def reset(self, seed=None):
        rng = random.Random(seed)
        names = rng.sample(["ada", "bo", "cyd", "dee", "eli", "fay", "gus", "hal", "ivy", "jo"], 6)
        self._state = {"members": {}, "loans": {}}
        for n, name in enumerate(names):
            member_id = f"M{n + 1:02d}"
            self._state["members"][member_id] = {"name": name, "fine": 0}
            for _ in range(rng.randint(1, 3)):
                loan_id = f"L{len(self._state['loans']) + 1:03d}"
                self._state["loans"][loan_id] = {"member": member_id, "due": 100 + rng.randint(1, 20), "renewed": False}
        self._member = rng.choice(sorted(self._state["members"]))
        self._loan = rng.choice(sorted(l for l, loan in self._state["loans"].items() if loan["member"] == self._member))
        days_late = rng.randint(1, 9)
        self._state["loans"][self._loan]["due"] = 100 - days_late
        self._state["members"][self._member]["fine"] = days_late
        self._expected_answer = str(100 - days_late + 14)
        member = {"type": "object", "properties": {"member_id": {"type": "string"}}, "required": ["member_id"]}
        self._tools = {
            "find_member": {"description": "The id of a member, by name.",
                            "parameters": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
            "list_loans": {"description": "A member's loans and their due days.", "parameters": member},
            "pay_fine": {"description": "Pay a member's whole fine.", "parameters": member},
            "renew_loan": {"description": "Extend a loan by 7 or 14 days.",
                           "parameters": {"type": "object", "properties": {"loan_id": {"type": "string"}, "days": {"type": "integer", "enum": [7, 14]}},
                                          "required": ["loan_id", "days"]}},
            "reserve_title": {"description": "Reserve a title for a member.",
                              "parameters": {"type": "object", "properties": {"member_id": {"type": "string"}, "title": {"type": "string"}},
                                             "required": ["member_id", "title"]}},
        }
        name = self._state["members"][self._member]["name"]
        return (f"Today is day 100. Library member {name} has an overdue loan. Renew it by 14 days, then reply "
                "with its new due day as <answer>DAY</answer>."), {}

    def tool_find_member(self, name):
        for member_id, member in sorted(self._state["members"].items()):
            if member["name"] == name:
                return member_id
        return f"Error: no member named {name}"

    def tool_list_loans(self, member_id):
        loans = [{"loan_id": l, "due": loan["due"]} for l, loan in sorted(self._state["loans"].items()) if loan["member"] == member_id]
        return json.dumps(loans) if loans else f"Error: no loans for {member_id}"

    def tool_pay_fine(self, member_id):
        member = self._state["members"].get(member_id)
        if member is None:
            return f"Error: no member {member_id}"
        paid, member["fine"] = member["fine"], 0
        return f"Paid a fine of {paid}"

    def tool_renew_loan(self, loan_id, days):
        loan = self._state["loans"].get(loan_id)
        if loan is None:
            return f"Error: no loan {loan_id}"
        if self._state["members"][loan["member"]]["fine"] > 0:
            return "Error: the member has an unpaid fine"
        if days not in (7, 14):
            return "Error: days must be 7 or 14"
        loan["due"] += days
        loan["renewed"] = True
        return f"{loan_id} is now due on day {loan['due']}"

    def tool_reserve_title(self, member_id, title):
        return f"Reserved {title} for {member_id}"

    def _check_answer(self, answer):
        # The loan must really have been renewed, not only its new day worked out.
        return self._state["loans"][self._loan]["renewed"] and super()._check_answer(answer)

    def solution(self):
        name = self._state["members"][self._member]["name"]
        calls = [("find_member", {"name": name}), ("list_loans", {"member_id": self._member}),
                 ("pay_fine", {"member_id": self._member}), ("renew_loan", {"loan_id": self._loan, "days": 14})]
        lines = [f"<tool_call>{json.dumps({'name': tool, 'arguments': args})}</tool_call>" for tool, args in calls]
        return "\n".join(lines + [f"<answer>{self._expected_answer}</answer>"])
`;

const JAVASCRIPT_TOOL_USE_EXAMPLE = String.raw`export default class LibraryRenewalEnv extends ToolUseBaseEnv {
  // Renew a member's overdue loan; an unpaid fine blocks renewals until it is paid.
  reset(seed) {
    // Math.random is seeded from reset(seed) by the sandbox.
    const pick = (list) => list[Math.floor(Math.random() * list.length)];
    const first = Math.floor(Math.random() * 5);
    const names = ['ada', 'bo', 'cyd', 'dee', 'eli', 'fay', 'gus', 'hal', 'ivy', 'jo'].slice(first, first + 6);
    this._state = { members: {}, loans: {} };
    names.forEach((name, n) => {
      const memberId = 'M0' + (n + 1);
      this._state.members[memberId] = { name, fine: 0 };
      const count = 1 + Math.floor(Math.random() * 3);
      for (let k = 0; k < count; k++) {
        const loanId = 'L' + String(Object.keys(this._state.loans).length + 1).padStart(3, '0');
        this._state.loans[loanId] = { member: memberId, due: 101 + Math.floor(Math.random() * 20), renewed: false };
      }
    });
    this._member = pick(Object.keys(this._state.members).sort());
    this._loan = pick(Object.keys(this._state.loans).filter((id) => this._state.loans[id].member === this._member).sort());
    const daysLate = 1 + Math.floor(Math.random() * 9);
    this._state.loans[this._loan].due = 100 - daysLate;
    this._state.members[this._member].fine = daysLate;
    this._expected_answer = String(100 - daysLate + 14);
    const member = { type: 'object', properties: { member_id: { type: 'string' } }, required: ['member_id'] };
    this._tools = {
      find_member: { description: 'The id of a member, by name.', parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      list_loans: { description: "A member's loans and their due days.", parameters: member },
      pay_fine: { description: "Pay a member's whole fine.", parameters: member },
      renew_loan: {
        description: 'Extend a loan by 7 or 14 days.',
        parameters: { type: 'object', properties: { loan_id: { type: 'string' }, days: { type: 'integer', enum: [7, 14] } }, required: ['loan_id', 'days'] },
      },
      reserve_title: {
        description: 'Reserve a title for a member.',
        parameters: { type: 'object', properties: { member_id: { type: 'string' }, title: { type: 'string' } }, required: ['member_id', 'title'] },
      },
    };
    const name = this._state.members[this._member].name;
    return ['Today is day 100. Library member ' + name + ' has an overdue loan. Renew it by 14 days, then reply with its new due day as <answer>DAY</answer>.', {}];
  }

  // Each tool gets its arguments as one object.
  tool_find_member({ name }) {
    const found = Object.keys(this._state.members).sort().find((id) => this._state.members[id].name === name);
    return found ?? 'Error: no member named ' + name;
  }

  tool_list_loans({ member_id }) {
    const loans = Object.keys(this._state.loans).sort().filter((id) => this._state.loans[id].member === member_id)
      .map((id) => ({ loan_id: id, due: this._state.loans[id].due }));
    return loans.length ? JSON.stringify(loans) : 'Error: no loans for ' + member_id;
  }

  tool_pay_fine({ member_id }) {
    const member = this._state.members[member_id];
    if (!member) return 'Error: no member ' + member_id;
    const paid = member.fine;
    member.fine = 0;
    return 'Paid a fine of ' + paid;
  }

  tool_renew_loan({ loan_id, days }) {
    const loan = this._state.loans[loan_id];
    if (!loan) return 'Error: no loan ' + loan_id;
    if (this._state.members[loan.member].fine > 0) return 'Error: the member has an unpaid fine';
    if (days !== 7 && days !== 14) return 'Error: days must be 7 or 14';
    loan.due += days;
    loan.renewed = true;
    return loan_id + ' is now due on day ' + loan.due;
  }

  tool_reserve_title({ member_id, title }) {
    return 'Reserved ' + title + ' for ' + member_id;
  }

  _check_answer(answer) {
    // The loan must really have been renewed, not only its new day worked out.
    return this._state.loans[this._loan].renewed && super._check_answer(answer);
  }

  solution() {
    const name = this._state.members[this._member].name;
    const calls = [['find_member', { name }], ['list_loans', { member_id: this._member }], ['pay_fine', { member_id: this._member }], ['renew_loan', { loan_id: this._loan, days: 14 }]];
    const lines = calls.map(([tool, args]) => '<tool_call>' + JSON.stringify({ name: tool, arguments: args }) + '</tool_call>');
    return [...lines, '<answer>' + this._expected_answer + '</answer>'].join('\n');
  }
}
`;

/** The example tool-use environment program in `language`. */
export function toolUseExampleProgram(language: Language): string {
  return language === 'python' ? PYTHON_TOOL_USE_EXAMPLE : JAVASCRIPT_TOOL_USE_EXAMPLE;
}
