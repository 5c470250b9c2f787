// Prelude of docs/csharp.md's compare-and-step fragment: an endpoint on the shipped model, a
// FrameReader and a Stepper of qpos/qvel, and a policy. After the fragment the step must have
// been taken, and the same (now stale) precondition refused with nothing done.
using System;
using MjBridge;

static class {{name}}
{
    static void Policy(double[][] state, double[] ctrl)
    {
        ctrl[0] = -2.0 * state[0][0] - 0.5 * state[1][0];
        ctrl[1] = 0.0;
    }

    public static void Run()
    {
        using (var ep = Endpoint.Open(Config.FromPath("examples/models/cart_pole.xml")))
        using (var reader = ep.FrameReader(new[] { Field.Qpos, Field.Qvel }, new[] { new double[13], new double[11] }))
        using (var stepper = ep.Stepper(new[] { Field.Qpos, Field.Qvel }, new[] { new double[13], new double[11] }, 1))
        {
{{block}}
            if (!r.Ok || r.Report.TickAfter != 1) throw new Exception("not stepped: " + r.Outcome);
            Result stale = stepper.Step(Expect.At(seen));
            if (stale.Reason != Reason.Precondition || stale.Report.TickAfter != 1)
                throw new Exception("a stale precondition was not refused: " + stale.Outcome);
        }
    }
}
