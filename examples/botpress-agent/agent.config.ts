import { defineConfig } from '@botpress/runtime'

export default defineConfig({
  name: 'support-agent',
  description: 'A support agent: greets, files tickets, confirms orders',
  // workbench reads only evals.idleTimeout and evals.judgePassThreshold; the rest may be any code
  dependencies: {
    integrations: { webchat: { version: 'webchat@0.3.0', enabled: true } },
  },
  evals: {
    idleTimeout: 20_000, // ms per turn, unless an eval's options say otherwise
    judgePassThreshold: 3,
    judgeModel: 'fast',
  },
})
