import { Eval } from '@botpress/evals'

// Two evals in one file, as named exports.

export const orderRefund = new Eval({
  name: 'order-refund',
  description: 'A confirmed order can be refunded (fails on purpose: the bot never calls issueRefund)',
  type: 'capability',
  tags: ['events'],
  setup: {
    workflow: { trigger: 'onboarding', input: { userId: 'test-user-1' } },
  },
  conversation: [
    {
      event: { payload: { orderId: 'ORD-001', total: 49.99 } },
      assert: {
        response: [{ contains: 'ORD-001' }],
        workflow: [
          { name: 'orderConfirmation', entered: true },
          { name: 'orderConfirmation', completed: true },
        ],
        state: [{ path: 'conversation.lastOrder', equals: 'ORD-001' }],
      },
    },
    {
      user: "I'd like a refund for that order",
      assert: {
        response: [{ contains: '5 business days' }],
        tools: [{ called: 'issueRefund', params: { orderId: { equals: 'ORD-001' } } }],
      },
    },
  ],
  outcome: {
    state: [{ path: 'user.onboarded', equals: true }],
    workflow: [{ name: 'onboarding', completed: true }],
  },
})

export const urgentTicket = new Eval({
  name: 'urgent-ticket',
  description: `An urgent problem becomes a high-priority ticket for the right department`,
  type: 'regression',
  tags: ['tools', 'multi-turn'],
  setup: {
    state: { bot: { ticketCount: 2 }, user: { plan: 'pro' } },
  },
  conversation: [
    {
      user: "My laptop won't boot",
      assert: {
        tools: [{ called: 'lookupUser' }, { not_called: 'createTicket' }],
        state: [
          { path: 'conversation.topic', equals: 'support' },
          { path: 'conversation.topic', changed: true },
        ],
      },
    },
    {
      user: "Please open a ticket, it's urgent",
      assert: {
        response: [
          { matches: 'TKT-\\d{3}' }, // JavaScript's '\\d' is the regex \d
          { llm_judge: 'Response confirms the ticket was created' },
        ],
        tools: [
          {
            called: 'createTicket',
            params: { priority: { in: ['high', 'urgent'] }, department: { contains: 'Engineering' } },
          },
          { call_order: ['lookupUser', 'createTicket'] },
        ],
        state: [
          { path: 'bot.ticketCount', equals: 3 },
          { path: 'conversation.ticketId', exists: true },
        ],
        workflow: [{ name: 'ticketFlow', entered: true }],
      },
    },
    {
      user: 'Thanks, that\'s all',
      assert: { response: [{ contains: 'welcome' }] },
    },
  ],
  outcome: {
    state: [
      { path: 'conversation.resolved', equals: true },
      { path: 'user.plan', changed: false },
      { path: 'bot.ticketCount', gte: 3 },
    ],
    workflow: [{ name: 'ticketFlow', completed: true }],
  },
  options: { idleTimeout: 5000, judgePassThreshold: 3 },
})
