// Prelude of a whole C# snippet of docs/csharp.md: the block is the body of Run().
using System;
using MjBridge;

static class {{name}}
{
    public static void Run()
    {
{{block}}
    }
}
