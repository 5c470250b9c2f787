// Prelude of docs/csharp.md's history fragment: an endpoint on the shipped model with a
// history, 300 ticks stepped. The fragment must land on `h.OldestTick + 10` and leave
// `recording` holding a recording. On an engine with the basic profile only the open is
// refused at /history (checked) and nothing else runs.
using System;
using MjBridge;

static class {{name}}
{
    public static void Run()
    {
        Config config = Config.FromPath("examples/models/cart_pole.xml");
        config.HistoryWindowTicks = 1000;
        config.HistoryKeyframeEvery = 100;
        Endpoint opened;
        try { opened = Endpoint.Open(config); }
        catch (MjbException e)
        {
            if (e.Pointer != "/history" || !Bridge.BuildInfo().Contains("\"integration_profile\":false"))
                throw;
            return;
        }
        using (Endpoint ep = opened)
        {
            ep.Step(300).EnsureOk();
            string recording = null;
{{block}}
            if (!r.Ok || r.Report.TickAfter != h.OldestTick + 10) throw new Exception("not rewound: " + r.Outcome);
            if (recording == null || !recording.Contains("\"mjbridge_recording_v1\"")) throw new Exception("no recording");
        }
    }
}
