import { Eval } from '@botpress/evals'

/**
 * The bot greets by plan and stays quiet when told to.
 */
export default new Eval({
  name: 'greeting',
  description: 'The bot greets by plan and stays quiet when told to',
  type: 'capability',
  tags: ['smoke'],
  setup: {
    state: { user: { plan: 'pro' } }, // seeded before turn 1
  },
  conversation: [
    {
      user: 'Hi there!',
      assert: {
        response: [
          { contains: 'Hello' },
          { not_contains: 'error' },
          { matches: '(pro|free) plan' }, // a regex, written as a string
        ],
        timing: [{ response_time: { lte: 5000 } }],
      },
    },
    { user: 'Please ignore this.', expectSilence: true },
  ],
})
