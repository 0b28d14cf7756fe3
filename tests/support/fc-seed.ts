// Under `npm run test:soak`, every property test draws from one recorded seed (CALLSCOPE_SEED), so that a run's
// report names the seed that reproduces it. Without it fast-check picks a seed per property, as usual.
import fc from 'fast-check';

const seed = Number(process.env.CALLSCOPE_SEED);
if (process.env.CALLSCOPE_SEED && Number.isInteger(seed)) fc.configureGlobal({ seed });
