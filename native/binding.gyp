{
  "targets": [
    {
      "target_name": "callscope_scan",
      "sources": ["scan.cc"],
      "cflags_cc!": ["-std=gnu++17", "-fno-exceptions"],
      "cflags_cc": ["-std=gnu++17", "-O3", "-fno-exceptions", "-ffp-contract=off"]
    }
  ]
}
